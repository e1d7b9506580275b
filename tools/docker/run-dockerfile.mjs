// @ts-check
/**
 * `npm run test:docker`: the Dockerfile carried out without a Docker engine (CI has none), step
 * by step as it is written, so a change to it, to the build or to what the runtime stage needs is
 * exercised. Each stage gets its own temporary root outside the workspace (`/app` becomes
 * `<stage root>/app`); COPY takes the build context through .dockerignore, or another stage's
 * files with --from; RUN runs under `sh -c` with the stage's ENV; the last stage's CMD is started
 * from the runtime stage's files alone, against a redis-server of its own, and must serve /health.
 * What it cannot reproduce: the base image itself (this machine's Node runs every step) and USER.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createChecks, httpGet, withDeadline } from '../support/checks.mjs';
import { killAll, startProcess, startRedis, stopProcess } from '../support/processes.mjs';
import { envOf, parseDockerfile } from './dockerfile.mjs';
import { containerEnv, copy, runStep } from './steps.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** A full `npm ci` and build of the workspace, bounded as a whole. */
const DEADLINE_MS = 15 * 60_000;

const checks = createChecks('docker');
const tmp = mkdtempSync(join(tmpdir(), 'nest-redis-rate-limit-docker-'));
let cleaned = false;
function cleanUp() {
  if (cleaned) return;
  cleaned = true;
  killAll();
  rmSync(tmp, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM']))
  process.on(signal, () => {
    cleanUp();
    process.exit(1);
  });

/** @param {import('./dockerfile.mjs').Step} step */
const flagsOf = (step) =>
  Object.entries(step.flags)
    .map(([name, value]) => `--${name}=${value} `)
    .join('');

async function main() {
  // Another Dockerfile may be named (to try a change, or to see this check fail); the context
  // is the repository either way.
  const dockerfile = resolve(process.argv[2] ?? join(root, 'Dockerfile'));
  const stages = parseDockerfile(readFileSync(dockerfile, 'utf8'));
  /** @type {Map<string, string>} */
  const roots = new Map();
  /** @type {{ cmd?: import('./dockerfile.mjs').Step, env: Record<string, string>, workdir: string, stageRoot: string }} */
  let last = { env: {}, workdir: '/', stageRoot: '' };
  for (const [index, stage] of stages.entries()) {
    const stageRoot = join(tmp, `stage-${index}`);
    mkdirSync(stageRoot, { recursive: true });
    const node = /^node:(\d+)/.exec(stage.image)?.[1];
    if (node !== process.versions.node.split('.')[0])
      console.log(
        `  WARNING: ${stage.image} is not this machine's Node ${process.version}: its steps run on the latter`,
      );
    last = { env: {}, workdir: '/', stageRoot };
    for (const step of stage.steps)
      await checks.step(
        `stage ${stage.name}: ${step.op} ${flagsOf(step)}${step.text}`,
        async () => {
          if (step.op === 'WORKDIR') {
            last.workdir = posix.resolve(last.workdir, step.args[0]);
            mkdirSync(join(stageRoot, last.workdir), { recursive: true });
          } else if (step.op === 'ENV') Object.assign(last.env, envOf(step));
          else if (step.op === 'COPY')
            copy(step, { root, stageRoot, workdir: last.workdir, roots });
          else if (step.op === 'RUN') await runStep(step, join(stageRoot, last.workdir), last.env);
          else if (step.op === 'CMD') last.cmd = step;
          else console.log(`  not reproduced here (${step.op} ${step.text})`);
        },
      );
    checks.ok(
      true,
      `stage ${stage.name} (FROM ${stage.image}): ${stage.steps.length} steps carried out`,
    );
    roots.set(stage.name, stageRoot);
  }
  if (!last.cmd) throw new Error('Dockerfile: the last stage has no CMD');
  await checks.step(`CMD ${last.cmd.text}`, () =>
    runCmd(/** @type {import('./dockerfile.mjs').Step} */ (last.cmd), last),
  );
}

/**
 * Starts the image's command from the runtime stage alone and checks what a user of the image sees.
 * @param {import('./dockerfile.mjs').Step} cmd @param {{ env: Record<string, string>, workdir: string, stageRoot: string }} stage
 */
async function runCmd(cmd, { env, workdir, stageRoot }) {
  const args = cmd.exec ? cmd.args : ['sh', '-c', cmd.text];
  const redis = await startRedis(tmp);
  // PORT=0: the OS picks a free port and the demo logs it (the image's default is EXPOSE'd 3000).
  const app = await startProcess(args[0], args.slice(1), {
    cwd: join(stageRoot, workdir),
    env: containerEnv({ ...env, REDIS_URL: redis.url, PORT: '0', NO_COLOR: '1' }),
    ready: /Listening on http:\/\/localhost:(\d+)/,
    timeoutMs: 60_000,
    label: `CMD ${cmd.text}`,
  });
  const base = `http://127.0.0.1:${app.match[1]}`;
  try {
    const health = await httpGet(`${base}/health`);
    checks.ok(
      health.status === 200 && health.json?.status === 'ok',
      'GET /health is 200 with status ok (Redis up)',
      () => health.text,
    );
    const limited = await httpGet(`${base}/api/gcra`);
    checks.ok(
      limited.status === 200 && limited.headers.get('ratelimit-limit') !== null,
      'GET /api/gcra answers with RateLimit headers',
      () => ({ status: limited.status, headers: Object.fromEntries(limited.headers) }),
    );
    const page = await httpGet(`${base}/admin/dashboard/`);
    checks.ok(
      page.status === 200 && /^text\/html/.test(page.headers.get('content-type') ?? ''),
      'GET /admin/dashboard/ is 200 text/html (the dashboard is in the runtime stage)',
      () => ({ status: page.status, type: page.headers.get('content-type') }),
    );
  } catch (error) {
    await stopProcess(app.child);
    console.error(`--- demo output (last 4 KB):\n${app.output().slice(-4000)}\n---`);
    throw error;
  }
  const stopped = await stopProcess(app.child);
  checks.ok(stopped.graceful, 'the demo stops on SIGTERM (docker stop)', () => ({
    ...stopped,
    output: app.output().slice(-2000),
  }));
  await stopProcess(redis.child);
}

try {
  await withDeadline(main(), DEADLINE_MS, checks.stage);
} catch (error) {
  checks.fail(error);
}
cleanUp();
const passed = checks.summary();
process.exit(passed ? 0 : 1);
