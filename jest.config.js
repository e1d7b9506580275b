// @ts-check
/**
 * Jest configuration: projects (unit, integration, e2e on Express and on Fastify, load) sharing one
 * SWC transform.
 *
 * Why node_modules are partly transformed: NestJS 12 (`@nestjs/*`) ships ESM only ("type": "module"),
 * while this repo compiles to CommonJS and Jest runs CommonJS. Jest's module loader cannot load
 * ESM through `require`, so those packages are transpiled to CommonJS by @swc/jest. The same holds
 * for `file-type` (ESM only, loaded by @nestjs/common's FileTypeValidator through `import()`, which
 * SWC turns into `require`) and its ESM-only dependencies, and for `content-disposition` 3, which
 * @fastify/static (Swagger's UI on Fastify) requires from its own nested node_modules: so a path is
 * judged by its innermost node_modules package. `uid`, `@standard-schema/spec`, `tslib` and
 * `es-toolkit` are dual packages whose "require" export condition gives CommonJS, so they load
 * untransformed.
 *
 * Redis: there is no globalSetup. Each integration/e2e file starts its own Redis with
 * `startTestRedis()` from libs/rate-limit/test/support/redis-test-server.ts (REDIS_URL, else Docker if an engine
 * answers, else a spawned `redis-server` on a free port) and disposes it in `afterAll`.
 */

/** ESM-only packages that must be transpiled to CommonJS for Jest. */
const esmOnlyPackages = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@tokenizer',
  '@borewit',
  'content-disposition',
  // Mercurius (CommonJS) loads its ESM-only cache with `await import()`, which Jest's CommonJS
  // runtime cannot run: both are transpiled so that the import becomes a require.
  'mercurius',
  'quick-lru',
];

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** @param {'typescript' | 'ecmascript'} syntax */
const swc = (syntax) => [
  '@swc/jest',
  {
    jsc: {
      parser: syntax === 'typescript' ? { syntax, decorators: true } : { syntax },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

/** @type {import('jest').Config} */
const shared = {
  // Node's environment, failing a file that leaves an ioredis client open (tools/jest/).
  testEnvironment: '<rootDir>/tools/jest/no-open-redis-clients.environment.ts',
  setupFiles: ['<rootDir>/tools/jest/open-redis-clients.ts'],
  rootDir: __dirname,
  transform: {
    '^.+\\.(t|mt|ct)s$': swc('typescript'),
    '^.+\\.(m?js)$': swc('ecmascript'),
  },
  transformIgnorePatterns: [
    `/node_modules/(?!(${esmOnlyPackages.map(escape).join('|')})/)(?!.*/node_modules/)`,
  ],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  moduleNameMapper: {
    // Files a doc tells users to paste import their neighbours as `./x.js`, as ESM apps (Nest
    // 12's nest new) need; here they are TypeScript sources.
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@app/rate-limit$': '<rootDir>/libs/rate-limit/src',
    '^@app/rate-limit/(.*)$': '<rootDir>/libs/rate-limit/src/$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

/** Integration specs that start a Cluster or Sentinel, or count Lua instructions under valgrind. */
const TOPOLOGY_SPECS = [
  'libs/rate-limit/test/cluster.int-spec.ts',
  'libs/rate-limit/test/sentinel.int-spec.ts',
  'libs/rate-limit/test/lua-instructions.int-spec.ts',
];

/** @type {import('jest').Config} */
const e2e = {
  ...shared,
  displayName: 'e2e',
  // The demo's tests (test/) and the library's own, against fixture apps (libs/*/test/e2e/).
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts', '<rootDir>/libs/**/test/e2e/**/*.e2e-spec.ts'],
  testPathIgnorePatterns: ['<rootDir>/test/load/', '<rootDir>/test/browser/'],
};

/** @type {import('jest').Config} */
module.exports = {
  // Three files at a time on two cores: a quarter of a file's time is spent waiting on its Redis
  // processes and sockets (2 workers kept the cores 75 % busy). The parallel projects took
  // 181 s with 3 workers and 259 s with 2 on this machine; `load` runs one file at a time.
  // Wall-time bounds that are the product's promise and share the test's process (redis-paused,
  // password, admin-changes) missed under 3 workers only when the host starved the process:
  // they are checked less its stalls (libs/rate-limit/test/support/stall-meter.ts).
  // (See CONTRIBUTING: how to tell a flake from a defect.)
  maxWorkers: 3,
  testTimeout: 30_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/src/**/*.spec.ts',
        '<rootDir>/apps/**/src/**/*.spec.ts',
        '<rootDir>/tools/**/*.spec.ts',
      ],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/libs/**/test/**/*.int-spec.ts'],
      testPathIgnorePatterns: TOPOLOGY_SPECS,
    },
    {
      // Several Redis processes, or valgrind: kept out of `npm run test:quick`.
      ...shared,
      displayName: 'topologies',
      testMatch: TOPOLOGY_SPECS.map((spec) => `<rootDir>/${spec}`),
    },
    e2e,
    // The same suite on @nestjs/platform-fastify: both platforms give identical headers, bodies
    // and identities (SPEC section 13).
    {
      ...e2e,
      displayName: 'e2e-fastify',
      setupFiles: [...shared.setupFiles, '<rootDir>/tools/jest/fastify-platform.ts'],
      // Which Redis topology the demo's environment selects does not depend on the platform;
      // nor do adaptive protection's admin routes and Redis commands (its 429s are checked on
      // both, in adaptive-guard): each file waits on 250 ms ticks, 24 s of a worker together.
      testPathIgnorePatterns: [
        ...e2e.testPathIgnorePatterns,
        '<rootDir>/test/demo-topologies.e2e-spec.ts',
        '<rootDir>/libs/rate-limit/test/e2e/adaptive/adaptive-admin.e2e-spec.ts',
        '<rootDir>/libs/rate-limit/test/e2e/adaptive/adaptive-commands.e2e-spec.ts',
      ],
    },
    {
      // The demo as separate processes (`node dist/apps/demo/main.js`), built once beforehand;
      // the dashboard's browser tests (test/browser) drive Chromium against such processes.
      ...shared,
      displayName: 'load',
      testMatch: [
        '<rootDir>/test/load/**/*.e2e-spec.ts',
        '<rootDir>/test/browser/**/*.e2e-spec.ts',
      ],
      globalSetup: '<rootDir>/test/support/demo-build.ts',
    },
  ],
};
