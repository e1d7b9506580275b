// setupFiles of the `e2e-fastify` jest project: the whole e2e suite on @nestjs/platform-fastify
// (test/utils/create-demo-app.ts reads it). Express is the default.
process.env.DEMO_HTTP_PLATFORM = 'fastify';
