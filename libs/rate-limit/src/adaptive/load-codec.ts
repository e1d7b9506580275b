import type { InstanceLoad } from './fleet-pressure';
import { onGrid } from './control-law';
import { SIGNAL_NAMES, type SignalName } from './pressure';

/** What an instance reports in its heartbeat besides its id and the time. */
export interface ReportedLoad {
  pressure: number;
  dominant: SignalName;
  rps: number;
  /** Share of its requests its configured limits rejected (the boost's "demand is limited"). */
  limited: number;
}

const SIGNALS = new Set<string>(SIGNAL_NAMES);

/** "pressure,dominant,rps,limited": short, and readable in redis-cli. */
export const encodeLoad = (load: ReportedLoad): string =>
  `${round(load.pressure)},${load.dominant},${Math.round(load.rps)},${round(load.limited)}`;

/**
 * An instance's load as the leader reads it from Redis; anything malformed (another version,
 * a hand-written field) is left out rather than trusted.
 */
export function decodeLoad(
  id: string,
  reportedAt: number,
  text: string,
): (InstanceLoad & ReportedLoad) | undefined {
  const [pressure, dominant, rps, limited, ...rest] = text.split(',');
  if (rest.length > 0 || !SIGNALS.has(dominant)) return undefined;
  const numbers = [pressure, rps, limited].map(Number);
  if (!numbers.every((n) => Number.isFinite(n) && n >= 0)) return undefined;
  if (!Number.isFinite(reportedAt)) return undefined;
  return {
    id,
    reportedAt,
    pressure: numbers[0],
    dominant: dominant as SignalName,
    rps: numbers[1],
    limited: Math.min(1, numbers[2]),
  };
}

const round = (value: number): string => String(onGrid(value));
