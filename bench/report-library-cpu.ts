/** The library phase's Node CPU per call, where calls do not overlap (1 in flight). */
import { CONTENDERS } from './library/contenders';
import type { LibraryRun } from './library/library-bench';
import { libRatio, ratio, usec } from './report-ratios';
import { spread } from './support/stats';

const KEY_MODES = ['hot key', '10,000 keys'] as const;

export const cpuOf = (run: LibraryRun) => run.cpuUsecPerOp;

/** Paired per repetition: ours' CPU per lone call over another contender's. */
export function loneCpuRatio(
  library: readonly LibraryRun[],
  keys: (typeof KEY_MODES)[number],
  vs: 'rate-limiter-flexible' | 'floor',
) {
  return libRatio(library, keys, 1, 'ours', vs, cpuOf);
}

export function renderLibraryCpu(library: readonly LibraryRun[]): string[] {
  const lone = library.filter((r) => r.inflight === 1);
  if (lone.length === 0) return [];
  const out = [
    '### Node CPU per call, 1 in flight',
    '',
    "This process's CPU time (user + system, `process.cpuUsage()`) over the measured calls, ÷ calls: " +
      "the Node work of one lone decision with its client, which a host's noise moves far less than calls/s. " +
      'µs per call, median (min–max) over repetitions; the ratios are paired per repetition (lower is cheaper).',
    '',
    `| keys | ${CONTENDERS.join(' | ')} | ours / rate-limiter-flexible | ours / floor |`,
    `|---|${CONTENDERS.map(() => '---|').join('')}---|---|`,
  ];
  for (const keys of KEY_MODES) {
    const cells = CONTENDERS.map((c) => {
      const s = spread(lone.filter((r) => r.keys === keys && r.contender === c).map(cpuOf));
      return `${usec(s.median)} (${usec(s.min)}–${usec(s.max)})`;
    });
    out.push(
      `| ${keys} | ${cells.join(' | ')} | ${ratio(loneCpuRatio(library, keys, 'rate-limiter-flexible'))} | ` +
        `${ratio(loneCpuRatio(library, keys, 'floor'))} |`,
    );
  }
  out.push('');
  return out;
}
