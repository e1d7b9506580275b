// @ts-check
/**
 * The library's layers, lowest first. A file may import from its own layer and the layers
 * below; importing from a layer above fails `npm run lint` (and so `npm test` and CI). Within a
 * layer, `alsoForbidden` names the folders a folder must not reach sideways.
 * docs/ARCHITECTURE.md draws the same table.
 */
export const LAYERS = [
  {
    name: 'foundation',
    folders: ['util', 'policy', 'decision', 'errors', 'keys', 'identity', 'decorators', 'config'],
  },
  { name: 'registry', folders: ['registry'] },
  { name: 'engine and stores', folders: ['store', 'metrics', 'engine'] },
  { name: 'runtime', folders: ['runtime'] },
  { name: 'application', folders: ['service', 'guard', 'health', 'module'] },
  { name: 'admin', folders: ['admin'] },
];

/** Sideways rules inside a layer: a store knows neither the engine that calls it nor metrics. */
const ALSO_FORBIDDEN = {
  store: ['engine', 'metrics'],
  metrics: ['engine', 'store'],
  guard: ['module', 'health'],
  service: ['module', 'guard', 'health'],
  health: ['module', 'guard', 'service'],
};

const SRC = 'libs/rate-limit/src';

/** A relative import that climbs into `folder` (from anywhere in the library). */
const into = (folder) => `^(\\.\\./)+${folder}(/|$)`;

/** One ESLint flat-config block per folder: `no-restricted-imports` of every higher folder. */
export function layerRules() {
  return LAYERS.flatMap((layer, index) => {
    const higher = LAYERS.slice(index + 1).flatMap((l) => l.folders);
    return layer.folders.map((folder) => {
      const forbidden = [...higher, ...(ALSO_FORBIDDEN[folder] ?? [])];
      return {
        files: [`${SRC}/${folder}/**/*.ts`],
        ignores: ['**/*.spec.ts'],
        rules: {
          'no-restricted-imports': [
            'error',
            {
              patterns: [
                ...forbidden.map((target) => ({
                  regex: into(target),
                  message: `${folder}/ (layer "${layer.name}") must not import ${target}/: dependencies point down (see docs/ARCHITECTURE.md)`,
                })),
                {
                  regex: '^(\\.\\./)+(index|(\\.\\./)*test|(\\.\\./)*apps)(/|$)',
                  message: 'library code imports neither the public barrel, tests nor apps',
                },
              ],
            },
          ],
        },
      };
    });
  });
}

/** The demo is a user of the library: the public barrel only. */
export const appRules = {
  files: ['apps/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^@app/rate-limit/|libs/rate-limit',
            message: 'apps use the library through its public API: import from @app/rate-limit',
          },
        ],
      },
    ],
  },
};
