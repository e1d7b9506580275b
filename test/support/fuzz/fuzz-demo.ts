/**
 * The target of the fuzz suite: the demo as users run it (`node dist/apps/demo/main.js`, a
 * process of its own) on a real Redis, with a direct Redis client to write and read what the
 * demo keeps there, and its log watched for errors that were not answered as HTTP errors.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { type DemoProcess, startDemoProcess } from '../demo-process';
import {
  startTestRedis,
  uniquePrefix,
  type TestRedis,
} from '../../../libs/rate-limit/test/support/redis-test-server';
import { FuzzClient } from './fuzz-client';

/** Lines that mean an exception escaped (Nest's ExceptionsHandler logs every 500) or worse. */
const ESCAPED = /ExceptionsHandler|Unhandled|uncaught|FATAL|heap out of memory/i;

export interface FuzzDemo {
  readonly demo: DemoProcess;
  readonly redis: Redis;
  readonly prefix: string;
  /** The admin token (at least 32 characters). */
  readonly token: string;
  readonly auth: Record<string, string>;
  readonly client: FuzzClient;
  /** Every policy of the demo -> the first route it limits (none for the admin's own). */
  readonly policies: Map<string, string | undefined>;
  /** The policy's key as stored, whatever its type (a hash as JSON): for before/after checks. */
  policyState(name: string): Promise<string>;
  /** Every `<prefix>:policy:*` key by policy name, as `policyState` shows it. */
  policyStates(): Promise<Map<string, string>>;
  /** Every key the demo keeps under its prefix. */
  keys(): Promise<string[]>;
  /** Log lines that show an exception that escaped. */
  readonly escaped: string[];
  /** True while the demo process has not exited. */
  alive(): boolean;
  stop(): Promise<void>;
}

export async function startFuzzDemo(): Promise<FuzzDemo> {
  const server: TestRedis = await startTestRedis();
  const prefix = uniquePrefix('fuzz');
  const token = `fuzz-admin-${randomBytes(24).toString('hex')}`;
  const demo = await startDemoProcess({
    REDIS_URL: server.url,
    RATE_LIMIT_KEY_PREFIX: prefix,
    ADMIN_TOKEN: token,
    // Direct writes to the policy hashes are picked up within 50 ms instead of 5 s.
    RATE_LIMIT_POLICY_REFRESH_MS: '50',
    // Our clients are loopback addresses: X-Forwarded-For is read (and fuzzed) from them.
    TRUST_PROXY: 'loopback',
    // Input is fuzzed here, not Redis latency: on a busy CI machine a 100 ms command timeout
    // would turn an admin reset into a (correct) 503 and fail the run for the wrong reason.
    RATE_LIMIT_TIMEOUT_MS: '1000',
  });
  const escaped: string[] = [];
  const watch = (chunk: Buffer) =>
    chunk
      .toString()
      .split('\n')
      .filter((line) => ESCAPED.test(line))
      .forEach((line) => escaped.length < 50 && escaped.push(line));
  demo.child.stdout?.on('data', watch);
  demo.child.stderr?.on('data', watch);
  const redis = new Redis(server.url);
  const client = new FuzzClient(demo.port);
  const auth = { authorization: `Bearer ${token}` };
  const stop = async () => {
    client.close();
    await demo.stop();
    redis.disconnect();
    await server.close();
  };
  let policies: Map<string, string | undefined>;
  try {
    policies = await routesOfPolicies(client, auth);
  } catch (error) {
    await stop();
    throw error;
  }
  const hashKey = (name: string) => `${prefix}:policy:${name}`;
  const scan = async (match: string) => {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== '0');
    return found;
  };
  return {
    demo,
    redis,
    prefix,
    token,
    auth,
    client,
    policies,
    escaped,
    policyState: (name) => stateOf(redis, hashKey(name)),
    async policyStates() {
      const keys = await scan(hashKey('*'));
      const states = await Promise.all(keys.map((key) => stateOf(redis, key)));
      return new Map(keys.map((key, i) => [key.slice(hashKey('').length), states[i]]));
    },
    keys: () => scan(`${prefix}:*`),
    alive: () => demo.child.exitCode === null && demo.child.signalCode === null,
    stop,
  };
}

/**
 * Every policy -> the first HTTP route it limits, from GET /admin/policies (a resolver, gateway
 * or microservice handler is listed too, with GRAPHQL, WS or RPC as its method).
 */
async function routesOfPolicies(
  client: FuzzClient,
  auth: Record<string, string>,
): Promise<Map<string, string | undefined>> {
  const res = await client.send('setup', { method: 'GET', path: '/admin/policies', headers: auth });
  const views = JSON.parse(res.body) as {
    name: string;
    routes: { method: string; path: string }[];
  }[];
  if (res.status !== 200 || !Array.isArray(views) || views.length === 0) {
    throw new Error(`GET /admin/policies: ${res.status} ${res.body.slice(0, 2000)}`);
  }
  const http = (route: { method: string }) => !['GRAPHQL', 'WS', 'RPC'].includes(route.method);
  return new Map(views.map((view) => [view.name, view.routes.find(http)?.path]));
}

/** A key's content, printable and comparable: a hash as JSON, another type as its DUMP. */
async function stateOf(redis: Redis, key: string): Promise<string> {
  const type = await redis.type(key);
  if (type === 'none') return '(none)';
  if (type === 'hash') return JSON.stringify(await redis.hgetall(key));
  return `${type} ${(await redis.dumpBuffer(key)).toString('hex')}`;
}
