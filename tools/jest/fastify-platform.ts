// setupFiles of the `e2e-fastify` jest project: the whole e2e suite on @nestjs/platform-fastify
// (test/support/create-demo-app.ts and the library's fixture apps read it). Express is the default.
process.env.TEST_HTTP_PLATFORM = 'fastify';
