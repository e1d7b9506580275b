// @ts-check
/**
 * Mutation testing of the pure modules: `npm run test:mutation` (docs/MUTATION.md).
 *
 * The jest runner runs the unit specs of these modules (jest.mutation.config.js, built from the
 * unit project of jest.config.js). Stryker instruments the TypeScript source in a sandbox copy,
 * then @swc/jest transforms it as in `npm test`, so no build and no TypeScript checker is needed.
 *
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { configFile: 'jest.mutation.config.js' },
  // Each mutant runs only the tests that reached it in the initial run.
  coverageAnalysis: 'perTest',
  // Mutants of module-level constants (regular expressions, tables) and code a spec runs while
  // Jest collects it are "static": they run every related spec. They are few and cheap here, and
  // ignoring them would leave out the regular expressions that check durations and key text.
  ignoreStatic: false,
  // The host has 2 cores and is shared with other work.
  concurrency: 2,
  // Added to each mutant's expected run time before it counts as a timeout (an endless loop):
  // generous, so a busy host does not turn a slow run into a "detected" mutant.
  timeoutMS: 10_000,
  mutate: [
    'libs/rate-limit/src/guard/rate-limit-headers.ts',
    'libs/rate-limit/src/policy/normalize-policy.ts',
    'libs/rate-limit/src/policy/parse-duration.ts',
    'libs/rate-limit/src/policy/threshold-problem.ts',
    'libs/rate-limit/src/keys/encode-key-part.ts',
    'libs/rate-limit/src/keys/identity-fingerprint.ts',
    'libs/rate-limit/src/keys/key-builder.ts',
    'libs/rate-limit/src/store/memory/algorithms/*.ts',
    '!libs/rate-limit/src/**/*.spec.ts',
  ],
  // The sandbox needs the library, its test support and the configs; not the app, builds,
  // end-to-end tests or benchmarks.
  ignorePatterns: ['dist', 'coverage', '/apps', '/test', '/bench', '/docs', '/reports'],
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // `npm run test:mutation` fails below 85 %.
  thresholds: { high: 90, low: 85, break: 85 },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
