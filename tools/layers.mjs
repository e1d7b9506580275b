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
    folders: [
      'util',
      'policy',
      'decision',
      'errors',
      'keys',
      'context',
      'identity',
      'decorators',
      'config',
      'adaptive',
    ],
  },
  { name: 'registry', folders: ['registry'] },
  { name: 'engine and stores', folders: ['store', 'metrics', 'engine'] },
  { name: 'runtime', folders: ['runtime'] },
  // Redis and memory implementations of the runtime's ports, chosen once by the module.
  { name: 'backends', folders: ['backends'] },
  { name: 'application', folders: ['service', 'guard', 'module'] },
  // The planes: entry points of their own, each importing only the core and the layers below.
  { name: 'planes', folders: ['shedder', 'health', 'openapi', 'admin'] },
];

/** Sideways rules inside a layer: a store knows neither the engine that calls it nor metrics. */
const ALSO_FORBIDDEN = {
  store: ['engine', 'metrics'],
  engine: ['metrics'],
  metrics: ['engine', 'store'],
  guard: ['module'],
  service: ['module', 'guard'],
  // Each plane stands alone on the core: an application mounts any of them without the others.
  shedder: ['health', 'openapi', 'admin'],
  health: ['shedder', 'openapi', 'admin'],
  openapi: ['shedder', 'health', 'admin'],
  admin: ['shedder', 'health', 'openapi'],
};

const SRC = 'libs/rate-limit/src';

/** A relative import that reaches `folder` (from anywhere in the library, src/ included). */
const into = (folder) => `^(\\./)?(\\.\\./)*${folder}(/|$)`;

/** The stores themselves: only the backends and the fallback (its own memory store) name one. */
const STORE_CLASSES = {
  regex: '(^|/)store/(redis/redis-store|memory/memory-store)$',
  message:
    'only backends/ chooses a store: code outside store/ knows it by the RateLimitStore interface',
};
const MAY_NAME_A_STORE = ['store', 'backends'];
const NAMES_ITS_OWN_STORE = `${'libs/rate-limit/src'}/engine/fallback-store.ts`;

const LIBRARY_ENTRY = {
  regex: '^@app/rate-limit(/|$)|^(\\./)?(\\.\\./)*(index|test|apps)(/|$)',
  message: 'library code imports neither through its own alias or barrel, nor tests or apps',
};

/** One ESLint flat-config block per folder: `no-restricted-imports` of every higher folder. */
export function layerRules() {
  const blocks = LAYERS.flatMap((layer, index) => {
    const higher = LAYERS.slice(index + 1).flatMap((l) => l.folders);
    return layer.folders.map((folder) => {
      const forbidden = [...higher, ...(ALSO_FORBIDDEN[folder] ?? [])];
      const patterns = [...upward(folder, layer.name, forbidden), LIBRARY_ENTRY];
      if (!MAY_NAME_A_STORE.includes(folder)) patterns.push(STORE_CLASSES);
      return block([`${SRC}/${folder}/**/*.ts`], patterns);
    });
  });
  // The files at the root of src/ (constants) belong to the foundation.
  const aboveFoundation = LAYERS.slice(1).flatMap((l) => l.folders);
  blocks.push(
    block(
      [`${SRC}/*.ts`],
      [...upward('src/', LAYERS[0].name, aboveFoundation), LIBRARY_ENTRY],
      [`${SRC}/index.ts`],
    ),
  );
  // The fallback decides in a memory store of its own while Redis is away.
  const engine = LAYERS.findIndex((l) => l.folders.includes('engine'));
  const aboveEngine = [...LAYERS.slice(engine + 1).flatMap((l) => l.folders), 'metrics'];
  blocks.push(
    block(
      [NAMES_ITS_OWN_STORE],
      [...upward('engine', LAYERS[engine].name, aboveEngine), LIBRARY_ENTRY],
    ),
  );
  return blocks;
}

function upward(folder, layerName, targets) {
  return targets.map((target) => ({
    regex: into(target),
    message: `${folder}/ (layer "${layerName}") must not import ${target}/: dependencies point down (see docs/ARCHITECTURE.md)`,
  }));
}

function block(files, patterns, ignores = []) {
  return {
    files,
    ignores: ['**/*.spec.ts', ...ignores],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
}

/** The library's entry points besides the core (`@app/rate-limit`), as a user imports them. */
export const PLANE_ENTRY_POINTS = ['admin', 'health', 'openapi', 'shedder'];

/** The demo is a user of the library: its entry points only. */
export const appRules = {
  files: ['apps/**/*.ts'],
  ignores: ['**/*.spec.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^@app/rate-limit/(?!(${PLANE_ENTRY_POINTS.join('|')})$)|libs/rate-limit`,
            message:
              'apps use the library through its entry points: @app/rate-limit, ' +
              PLANE_ENTRY_POINTS.map((plane) => `@app/rate-limit/${plane}`).join(', '),
          },
        ],
      },
    ],
  },
};
