// Shapes of the admin API as the dashboard reads them (mirrors libs/rate-limit/src/admin).

export const ALGORITHMS = [
  'fixed-window',
  'sliding-window',
  'sliding-window-counter',
  'token-bucket',
  'leaky-bucket',
  'gcra',
] as const;
export type Algorithm = (typeof ALGORITHMS)[number];

export const MODES = ['enforce', 'shadow'] as const;
export type Mode = (typeof MODES)[number];

export const CLIENT_ACTIONS = ['quota', 'allow', 'deny'] as const;
export type ClientAction = (typeof CLIENT_ACTIONS)[number];

export interface Thresholds {
  algo: Algorithm;
  limit: number;
  windowMs: number;
  burst: number;
  mode: Mode;
  enabled: boolean;
}

export interface Stats {
  allowed: number;
  rejected: number;
  shadowRejected: number;
}

export interface TierThresholds {
  limit?: number;
  windowMs?: number;
  burst?: number;
}

export interface TierView {
  name: string;
  limit: number;
  windowMs: number;
  burst: number;
  defaults: TierThresholds;
  override: TierThresholds | null;
  stats: Stats;
}

export interface PolicyView extends Thresholds {
  name: string;
  routes: { method: string; path: string }[];
  defaults: Thresholds;
  override: (Partial<Thresholds> & { updatedAt?: number }) | null;
  stats: Stats;
  tiers: TierView[];
}

export interface KeyUsage {
  identity: string;
  used: number;
  remaining: number;
  resetMs: number;
  blockedMs: number;
}

export interface Page<T> {
  items: T[];
  cursor: string | null;
}

export interface ClientOverrideView {
  identity: string;
  action: ClientAction;
  limit?: number;
  windowMs?: number;
  burst?: number;
  message?: string;
  expiresAt: string | null;
  updatedAt: string;
}

export interface Series {
  allowed: number[];
  rejected: number[];
  shadowRejected: number[];
}

export interface TrafficWindow {
  bucketMs: number;
  start: number;
  end: number;
}

export type PolicyTraffic = TrafficWindow & Series;
export type AllTraffic = TrafficWindow & { policies: Record<string, Series> };

export interface TopRejected {
  minutes: number;
  items: { identity: string; rejected: number }[];
}

export interface AuditEntry {
  at: number;
  policy: string;
  tier?: string;
  identity?: string;
  action: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  instance: string;
  source: 'api' | 'hash';
}

export interface InstanceView {
  id: string;
  host: string;
  pid: number;
  version: string;
  store: 'redis' | 'memory';
  breaker: 'closed' | 'open';
  fallback: boolean;
  onRedisError?: 'memory' | 'open' | 'closed';
  startedAt: number;
  lastBeatAt: number;
  lastFlushAt: number | null;
  self: boolean;
}

export interface InstancesView {
  redis: 'up' | 'down';
  self: string;
  instances: InstanceView[];
}

/** GET /adaptive: adaptive protection on the answering instance, and every instance's load. */
export interface AdaptiveView {
  mode: 'off' | 'shadow' | 'enforce';
  leading: boolean;
  frozenUntil: number | null;
  state: { epoch: number; level: number; boost: number; at: number } | null;
  localLevel: number;
  multipliers: Record<string, number>;
  instances: {
    id: string;
    reportedAt: number;
    pressure: number;
    dominant: string;
    rps: number;
    limited: number;
  }[];
}
