// @ts-check
/**
 * The sources of a fresh app, as `nest new` lays them out: its tsconfig (Nest 11's or Nest 12's,
 * CommonJS or ESM), nest new's own app.service.ts, the package README's marked blocks for the
 * rest (read from the installed package, so what a user pastes is what is compiled and run), and
 * a main.ts of the test's own (a port the OS picks, the planes' bootstrap calls).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What every tsconfig of `nest new` (11.x and 12.x) has, strict as with `nest new --strict`. */
const COMMON = {
  declaration: true,
  removeComments: true,
  emitDecoratorMetadata: true,
  experimentalDecorators: true,
  allowSyntheticDefaultImports: true,
  sourceMap: true,
  outDir: './dist',
  rootDir: './src',
  skipLibCheck: true,
  types: ['node'],
};

/** Nest 12's (`ts` and `ts-esm` alike) and Nest 11's since 11.1: nodenext, `exports` honoured. */
const NODENEXT = {
  ...COMMON,
  module: 'nodenext',
  moduleResolution: 'nodenext',
  resolvePackageJsonExports: true,
  esModuleInterop: true,
  isolatedModules: true,
  target: 'ES2023',
  strict: true,
  strictPropertyInitialization: false,
};

/**
 * Nest 11.0's `nest new` (@nestjs/schematics 11.0.0): `module: commonjs`, whose resolution
 * ignores the `exports` map, so the entry points' types must resolve by their folders too.
 */
const NEST_11_COMMONJS = {
  ...COMMON,
  module: 'commonjs',
  target: 'ES2021',
  baseUrl: './',
  strictNullChecks: true,
  forceConsistentCasingInFileNames: true,
  noImplicitAny: true,
  strictBindCallApply: true,
  noFallthroughCasesInSwitch: true,
};

/** The files each kind of app takes from the package README, after `package-test: <kind>`. */
export const README_FILES = {
  core: ['src/app.module.ts', 'src/app.controller.ts'],
  full: [
    'src/app.module.ts',
    'src/app.controller.ts',
    'src/health.controller.ts',
    'src/swagger.ts',
  ],
};

/**
 * The README's blocks marked `<!-- package-test: core|full <path> -->`; a full app takes the
 * core's blocks it has no block of its own for.
 * @param {string} readme @param {'core' | 'full'} kind @returns {Record<string, string>}
 */
export function readmeFiles(readme, kind) {
  /** @type {Record<string, Record<string, string>>} */
  const blocks = { core: {}, full: {} };
  for (const [, marked, path, code] of readme.matchAll(
    /<!-- package-test: (core|full) (\S+) -->\s*```ts\n([\s\S]*?)```/g,
  ))
    blocks[marked][path] = code;
  const files = { ...blocks.core, ...(kind === 'full' ? blocks.full : {}) };
  const missing = README_FILES[kind].filter((path) => !files[path]);
  if (missing.length > 0)
    throw new Error(
      `the package README has no \`\`\`ts block after <!-- package-test: ${kind} ... --> for ${missing.join(', ')}`,
    );
  return files;
}

/**
 * The test's own main.ts: listens on a port the OS picks and says which (no race for a free
 * port); a global exception filter logs each error response it sees, so the test can tell a
 * 429 the shedder answered before routing (no filter sees it) from one of the guard.
 * @param {{ platform: 'express' | 'fastify', planes: 'core' | 'full', flavour: 'commonjs' | 'module' }} app
 */
export function mainSource({ platform, planes, flavour }) {
  const fastify = platform === 'fastify';
  const full = planes === 'full';
  return `import type { AddressInfo } from 'node:net';
import { Catch, HttpException, type ArgumentsHost } from '@nestjs/common';
import { BaseExceptionFilter, HttpAdapterHost, NestFactory } from '@nestjs/core';
${fastify ? "import { FastifyAdapter } from '@nestjs/platform-fastify';\n" : ''}${
    full ? "import { shedRememberedRejections } from 'nest-redis-rate-limit/shedder';\n" : ''
  }import { AppModule } from './app.module.js';
${full ? "import { setupSwagger } from './swagger.js';\n" : ''}
@Catch()
class LoggedErrors extends BaseExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost) {
    const status = exception instanceof HttpException ? exception.getStatus() : 500;
    console.log(\`package-test filter saw \${status}\`);
    super.catch(exception, host);
  }
}

async function bootstrap() {
  const app = await NestFactory.create(AppModule, ${fastify ? 'new FastifyAdapter(), ' : ''}{
    logger: ['error', 'warn'],
  });
  app.useGlobalFilters(new LoggedErrors(app.get(HttpAdapterHost).httpAdapter));
${full ? '  shedRememberedRejections(app);\n  setupSwagger(app);\n' : ''}  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(\`package-test app listening on port \${port}\`);
}
${flavour === 'module' ? 'await bootstrap();' : 'void bootstrap();'}
`;
}

/** @param {string} path @param {unknown} value */
export const writeJson = (path, value) =>
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Writes one flavour's sources and tsconfig into `dir` (its package.json says the flavour).
 * @param {string} dir
 * @param {{ platform: 'express' | 'fastify', planes: 'core' | 'full', flavour: 'commonjs' | 'module', nestMajor: number }} app
 * @param {Record<string, string>} files the README's blocks by path
 * @param {string} appService nest new's src/app.service.ts
 */
export function writeAppSources(dir, app, files, appService) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  const nodenext = app.nestMajor >= 12 || app.flavour === 'module';
  writeJson(join(dir, 'tsconfig.json'), {
    compilerOptions: nodenext ? NODENEXT : NEST_11_COMMONJS,
    include: ['src'],
  });
  writeFileSync(join(dir, 'src/main.ts'), mainSource(app));
  writeFileSync(join(dir, 'src/app.service.ts'), appService);
  for (const [path, code] of Object.entries(files)) writeFileSync(join(dir, path), code);
}

/** nest new's app.service.ts, from the schematics the repo installs (the same in ts and ts-esm). */
export function nestNewAppService(/** @type {string} */ root) {
  return readFileSync(
    join(root, 'node_modules/@nestjs/schematics/dist/lib/application/files/ts/src/app.service.ts'),
    'utf8',
  );
}
