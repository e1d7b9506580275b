/**
 * Several demo processes on one Redis (or Cluster), as behind a load balancer: started fresh,
 * their limits set through the admin API, their metrics read back.
 */
import { type DemoProcess, metricTotal, startDemoProcess } from './demo-process';

export const ADMIN_TOKEN = 'load-test-admin-token-0123456789abcdef';

export interface Fleet {
  readonly instances: DemoProcess[];
  readonly targets: string[];
  /** PATCHes a policy on one instance and waits until every instance enforces it. */
  setPolicy(name: string, patch: Record<string, unknown>): Promise<void>;
  /** Totals over every instance of the series that must stay 0 while Redis is healthy. */
  faults(): Promise<Record<string, number>>;
  /**
   * Per instance: its failure series (by kind) and the lines it logged about Redis, for the
   * report of a test whose faults were not 0.
   */
  faultReport(): Promise<string>;
  stop(): Promise<void>;
}

/** Where Redis is, as the demo's environment says it. */
export type RedisEnv = { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string };

/** `main`: another build of the demo than dist/ (the soak benchmark builds its own). */
export async function startFleet(
  size: number,
  redis: RedisEnv,
  env: Record<string, string> = {},
  main?: string,
): Promise<Fleet> {
  const instances = await Promise.all(
    Array.from({ length: size }, () =>
      startDemoProcess({ ...redis, ADMIN_TOKEN, DEMO_LOAD_TEST_ROUTES: 'true', ...env }, main),
    ),
  );
  return {
    instances,
    targets: instances.map((i) => i.url),
    setPolicy: (name, patch) => setPolicyOn(instances, name, patch),
    async faults() {
      const scrapes = await Promise.all(instances.map((i) => i.metrics()));
      const total = (name: string) => scrapes.reduce((sum, m) => sum + metricTotal(m, name), 0);
      return {
        fallbackDecisions: total('rate_limit_fallback_decisions_total'),
        redisErrors: total('rate_limit_redis_errors_total'),
        circuitOpenings: total('rate_limit_redis_circuit_opened_total'),
      };
    },
    async faultReport() {
      const lines: string[] = [];
      for (const [i, instance] of instances.entries()) {
        const metrics = await instance.metrics();
        const series = [...metrics].filter(
          ([name, value]) =>
            value !== 0 && /^rate_limit_(redis_errors|fallback|redis_circuit_opened)/.test(name),
        );
        const logged = instance
          .recentOutput()
          .split('\n')
          .filter((line) => /redis|circuit|fallback/i.test(line))
          .slice(-15);
        lines.push(
          `instance ${i} (pid ${instance.pid}): ${series.map(([n, v]) => `${n}=${v}`).join(', ') || 'no faults'}`,
          ...logged.map((line) => `  | ${line}`),
        );
      }
      return lines.join('\n');
    },
    async stop() {
      await Promise.all(instances.map((i) => i.stop()));
    },
  };
}

/**
 * PATCHes a policy through the first instance's admin API (they share one Redis and key prefix)
 * and resolves once every instance's admin API shows the change (applied from Pub/Sub).
 */
export async function setPolicyOn(
  instances: readonly DemoProcess[],
  name: string,
  patch: Record<string, unknown>,
): Promise<void> {
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };
  const response = await fetch(`${instances[0].url}/admin/policies/${name}`, {
    method: 'PATCH',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify(patch),
  });
  if (response.status !== 200) {
    throw new Error(`PATCH ${name}: ${response.status} ${await response.text()}`);
  }
  for (const instance of instances) {
    for (;;) {
      const { body } = await instance.get(`/admin/policies/${name}`, auth);
      const view = JSON.parse(body) as Record<string, unknown>;
      if (Object.entries(patch).every(([field, value]) => view[field] === value)) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
