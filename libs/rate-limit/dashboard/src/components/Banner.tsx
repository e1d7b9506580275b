import { hrefOf } from '../router';
import type { InstancesView } from '../types';

/** Shown on every view while any instance is not deciding in Redis. */
export function Banner({ data }: { data: InstancesView | null }) {
  if (!data) return null;
  const problems: string[] = [];
  if (data.redis === 'down') problems.push('Redis is down.');
  const fallback = data.instances.filter((i) => i.fallback);
  if (fallback.length)
    problems.push(
      `${fallback.length} instance${fallback.length > 1 ? 's are' : ' is'} deciding from local memory (fallback): limits are per instance, not global.`,
    );
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
