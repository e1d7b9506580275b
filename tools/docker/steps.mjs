// @ts-check
/**
 * COPY and RUN as `docker build` carries them out, on folders standing in for the stages' file
 * systems (see run-dockerfile.mjs).
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, posix, relative } from 'node:path';
import { run } from '../support/processes.mjs';
import { dockerignoreFilter } from './dockerfile.mjs';

/** One RUN step (an `npm ci` or a whole build), bounded. */
const RUN_TIMEOUT_MS = 10 * 60_000;

/**
 * A container's environment: the image's ENV over what every image has (PATH, HOME), and nothing
 * else from this shell (so the app cannot lean on a variable only a developer has set).
 * @param {Record<string, string>} stageEnv
 */
export const containerEnv = (stageEnv) => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/root',
  ...stageEnv,
});

/** The build context's filter, read once per context. @type {Map<string, (path: string) => boolean>} */
const filters = new Map();
/** @param {string} context */
function contextFilter(context) {
  if (!filters.has(context)) {
    const ignoreFile = join(context, '.dockerignore');
    const text = existsSync(ignoreFile) ? readFileSync(ignoreFile, 'utf8') : '';
    filters.set(context, dockerignoreFilter(text));
  }
  return /** @type {(path: string) => boolean} */ (filters.get(context));
}

/**
 * @param {import('./dockerfile.mjs').Step} step
 * @param {{ root: string, stageRoot: string, workdir: string, roots: Map<string, string> }} where
 *   root: the build context; roots: the finished stages' roots, by name
 */
export function copy(step, { root, stageRoot, workdir, roots }) {
  const sent = contextFilter(root);
  const unknown = Object.keys(step.flags).filter((flag) => flag !== 'from');
  if (unknown.length)
    throw new Error(`Dockerfile:${step.line}: COPY --${unknown[0]} is not supported here`);
  const from = step.flags.from;
  const sourceRoot = from === undefined ? root : roots.get(from);
  if (!sourceRoot)
    throw new Error(`Dockerfile:${step.line}: COPY --from=${from}: no earlier stage of that name`);
  const sources = step.args.slice(0, -1);
  const dest = posix.resolve(workdir, step.args.at(-1) ?? '.');
  const intoFolder = sources.length > 1 || /\/$|^\.$/.test(step.args.at(-1) ?? '');
  for (const source of sources) {
    if (/[*?[]/.test(source))
      throw new Error(`Dockerfile:${step.line}: COPY with wildcards is not supported here`);
    // A stage's paths are absolute in its own root; the context's are relative to the repo.
    const from_ =
      from === undefined ? join(root, source) : join(sourceRoot, posix.resolve('/', source));
    if (!existsSync(from_))
      throw new Error(`Dockerfile:${step.line}: COPY ${source}: not found (${from_})`);
    const isFolder = statSync(from_).isDirectory();
    const to = join(stageRoot, isFolder || !intoFolder ? dest : posix.join(dest, basename(source)));
    mkdirSync(isFolder ? to : dirname(to), { recursive: true });
    // The context goes through .dockerignore, as `docker build` sends it; stages are copied whole.
    const filter = (/** @type {string} */ path) =>
      from !== undefined || path === root || sent(relative(root, path).split('\\').join('/'));
    cpSync(from_, to, { recursive: true, verbatimSymlinks: true, filter });
  }
}

/**
 * @param {import('./dockerfile.mjs').Step} step @param {string} cwd @param {Record<string, string>} env
 */
export async function runStep(step, cwd, env) {
  if (step.exec) throw new Error(`Dockerfile:${step.line}: RUN in exec form is not supported here`);
  const options = {
    cwd,
    // The machine's npm cache stands in for a build's network: npm takes the packages it holds
    // without asking the registry about each one again (the versions are the lock's, exact).
    env: { ...containerEnv(env), npm_config_prefer_offline: 'true' },
    timeoutMs: RUN_TIMEOUT_MS,
    label: `RUN ${step.text}`,
  };
  await run('sh', ['-c', step.text], options);
}
