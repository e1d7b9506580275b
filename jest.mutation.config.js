// @ts-check
/**
 * Jest configuration for mutation testing (`npm run test:mutation`; see stryker.config.mjs and
 * docs/MUTATION.md): the unit project of jest.config.js (same SWC transform, module mapping and
 * environment), narrowed to the spec files of the mutated pure modules.
 *
 * Why narrowed: for each mutant the jest runner loads every related spec file with the mutant
 * active. With the whole unit project, 411 mutants of the non-algorithm modules took 21 minutes
 * here, mostly loading Nest-heavy spec files that do not test these modules, and a mutant that
 * broke a spec calling normalizePolicy at its top level (memory-store.spec.ts, decide-call.spec.ts)
 * became a load error, which Stryker leaves out of the score. With this set, every mutant counted
 * as killed is killed by these modules' own specs.
 */
const { projects, ...root } = require('./jest.config.js');

const unit = projects.find((project) => project.displayName === 'unit');
if (!unit) throw new Error('jest.config.js has no "unit" project');

const src = '<rootDir>/libs/rate-limit/src';

/** @type {import('jest').Config} */
module.exports = {
  ...root,
  ...unit,
  displayName: 'unit (mutation)',
  // Jest crawls (and finds the specs related to a mutated file through) only these folders;
  // the memory algorithm specs reach the store through a driver in test/support.
  roots: [src, '<rootDir>/libs/rate-limit/test/support'],
  testMatch: [
    `${src}/guard/rate-limit-headers.spec.ts`,
    `${src}/policy/**/*.spec.ts`,
    `${src}/keys/**/*.spec.ts`,
    `${src}/store/memory/algorithms/**/*.spec.ts`,
  ],
};
