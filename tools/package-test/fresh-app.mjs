// @ts-check
/**
 * A fresh Nest application as `nest new` writes one (its tsconfig, its dependencies), outside the
 * workspace, depending on the packed tarball. Its module is not written here: it is the block the
 * package's README marks `<!-- package-test: src/app.module.ts -->`, read from the installed
 * package, so the README a user reads is the code that is compiled and run.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What every Nest app has besides the library's peers (`nest new`'s dependencies). */
const APP_DEPENDENCIES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  'reflect-metadata',
  'rxjs',
];
/** Compiles the app: the check that the package's types resolve and are right. */
const DEV_DEPENDENCIES = ['typescript', '@types/node'];

/**
 * The version the root package-lock.json installed, by package name.
 * @param {string} lockFile
 */
export function lockedVersions(lockFile) {
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  return (/** @type {string} */ name) => {
    const version = lock.packages?.[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name} is not in ${lockFile}: add it to the root package.json`);
    return /** @type {string} */ (version);
  };
}

/**
 * Versions for the app: what the root package-lock.json installed (the versions the rest of the
 * test suite runs against), or, with `lowest`, each peer range's lower bound (the oldest
 * versions the package claims to work with).
 * @param {string} lockFile @param {Record<string, string>} requiredPeers
 * @param {{ lowest: boolean }} mode
 */
export function appDependencies(lockFile, requiredPeers, { lowest }) {
  const locked = lockedVersions(lockFile);
  const lowerBound = (/** @type {string} */ range) =>
    range.replace(/^[\^~>=\s]+/, '').split(/\s/)[0];
  const pick = (/** @type {string} */ name) =>
    lowest && requiredPeers[name] ? lowerBound(requiredPeers[name]) : locked(name);
  /** @type {Record<string, string>} */
  const dependencies = {};
  for (const name of new Set([...APP_DEPENDENCIES, ...Object.keys(requiredPeers)]))
    dependencies[name] = pick(name);
  // Not a peer of the library: any 12.x works with it; in `lowest` mode it follows @nestjs/core.
  if (lowest) dependencies['@nestjs/platform-express'] = dependencies['@nestjs/core'];
  /** @type {Record<string, string>} */
  const devDependencies = {};
  for (const name of DEV_DEPENDENCIES) devDependencies[name] = locked(name);
  return { dependencies, devDependencies };
}

/** `nest new`'s tsconfig.json (CommonJS and ESM flavours alike), strict, without jest's types. */
const TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    resolvePackageJsonExports: true,
    esModuleInterop: true,
    isolatedModules: true,
    declaration: true,
    removeComments: true,
    emitDecoratorMetadata: true,
    experimentalDecorators: true,
    allowSyntheticDefaultImports: true,
    target: 'ES2023',
    types: ['node'],
    sourceMap: true,
    outDir: './dist',
    rootDir: './src',
    skipLibCheck: true,
    strict: true,
    strictPropertyInitialization: false,
  },
  include: ['src'],
};

/** Listens on a port the OS picks and says which, so the test never races for a free port. */
const MAIN_TS = `import type { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module.js';

async function bootstrap() {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  console.log(\`package-test app listening on port \${port}\`);
}
void bootstrap();
`;

/** @param {string} path @param {unknown} value */
const writeJson = (path, value) => writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);

/**
 * The app's package.json: dependencies from `appDependencies` plus the tarball.
 * @param {string} dir @param {string} packageName @param {string} tarball
 * @param {ReturnType<typeof appDependencies>} versions
 */
export function writeAppManifest(dir, packageName, tarball, versions) {
  mkdirSync(dir, { recursive: true });
  writeJson(join(dir, 'package.json'), {
    name: 'package-test-app',
    version: '0.0.0',
    private: true,
    dependencies: { ...versions.dependencies, [packageName]: `file:${tarball}` },
    devDependencies: versions.devDependencies,
  });
}

/**
 * The README block marked for this test.
 * @param {string} readme
 */
export function testedReadmeBlock(readme) {
  const block = /<!-- package-test: src\/app\.module\.ts -->\s*```ts\n([\s\S]*?)```/.exec(
    readme,
  )?.[1];
  if (!block)
    throw new Error(
      'the package README has no ```ts block after <!-- package-test: src/app.module.ts -->',
    );
  return block;
}

/**
 * Writes one flavour's sources: `commonjs` in the app's own folder (as `nest new` makes it),
 * `module` in a sub-folder whose package.json says `"type": "module"` (as `nest new --type esm`).
 * Both resolve packages from the app's node_modules.
 * @param {string} dir @param {'commonjs' | 'module'} flavour @param {string} appModule
 */
export function writeAppSources(dir, flavour, appModule) {
  mkdirSync(join(dir, 'src'), { recursive: true });
  if (flavour === 'module') writeJson(join(dir, 'package.json'), { private: true, type: 'module' });
  writeJson(join(dir, 'tsconfig.json'), TSCONFIG);
  writeFileSync(join(dir, 'src', 'main.ts'), MAIN_TS);
  writeFileSync(join(dir, 'src', 'app.module.ts'), appModule);
}
