import { hrefOf } from '../router';
import type { InstancesView } from '../types';

const count = (n: number) => `${n} instance${n > 1 ? 's' : ''}`;

/** What an instance without Redis does, by its `onRedisError`. */
const FALLBACK_TEXT = {
  memory: 'deciding from local memory (fallback): each admits its share, limits are not exact.',
  open: 'admitting every request without a limit (onRedisError: open).',
  closed: 'refusing every limited request (onRedisError: closed).',
};

/** Shown on every view while any instance is not deciding in Redis. */
export function Banner({ data }: { data: InstancesView | null }) {
  if (!data) return null;
  const problems: string[] = [];
  if (data.redis === 'down') problems.push('Redis is down.');
  for (const mode of ['memory', 'open', 'closed'] as const) {
    const on = data.instances.filter((i) => i.fallback && (i.onRedisError ?? 'memory') === mode);
    if (on.length) problems.push(`${count(on.length)} ${FALLBACK_TEXT[mode]}`);
  }
  const open = data.instances.filter((i) => i.breaker === 'open');
  if (open.length)
    problems.push(`Circuit breaker open on ${open.map((i) => i.host || i.id).join(', ')}.`);
  if (!problems.length) return null;
  return (
    <div class="banner" role="alert" data-testid="redis-banner">
      <strong>Degraded: </strong>
      {problems.join(' ')} <a href={hrefOf.instances()}>See instances</a>
    </div>
  );
}
