import { Injectable, type OnModuleInit, type Provider } from '@nestjs/common';
import type { RateLimitConfig } from '../config/resolve-module-options';
import { DecisionEngine } from '../engine/decision-engine';
import type { Backend } from '../backends/backend';
import {
  RATE_LIMIT_AUDIT,
  RATE_LIMIT_BACKEND,
  RATE_LIMIT_CONFIG,
  RATE_LIMIT_TRAFFIC,
} from '../rate-limit.constants';
import { AuditLog } from '../runtime/audit/audit-log.service';
import type { AuditStore } from '../runtime/audit/audit-store';
import { ChangeTrail } from '../runtime/audit/change-trail';
import { InstanceStatus } from '../runtime/instances/instance-status.service';
import { PolicyStats } from '../runtime/policy-stats.service';
import { TrafficRecorder } from '../runtime/traffic/traffic-recorder.service';
import type { TrafficStore } from '../runtime/traffic/traffic-store';

/**
 * Joins the admin plane to the core when the module is mounted: its observers (stats across
 * instances, the dashboard's traffic and instance status) count every decision from then on,
 * and its audit log keeps the changes the core reports.
 */
@Injectable()
export class AdminPlane implements OnModuleInit {
  constructor(
    private readonly engine: DecisionEngine,
    private readonly trail: ChangeTrail,
    private readonly audit: AuditLog,
    private readonly stats: PolicyStats,
    private readonly traffic: TrafficRecorder,
    private readonly status: InstanceStatus,
  ) {}

  onModuleInit(): void {
    for (const observer of [this.stats, this.traffic, this.status]) {
      this.engine.addObserver(observer);
    }
    this.trail.attach(this.audit);
  }
}

/** What only the admin plane reads: created (timers and Redis writes included) when mounted. */
export const ADMIN_PLANE_PROVIDERS: Provider[] = [
  {
    provide: RATE_LIMIT_TRAFFIC,
    inject: [RATE_LIMIT_BACKEND],
    useFactory: (backend: Backend): TrafficStore => backend.traffic(),
  },
  {
    provide: RATE_LIMIT_AUDIT,
    inject: [RATE_LIMIT_CONFIG, RATE_LIMIT_BACKEND],
    useFactory: (config: RateLimitConfig, backend: Backend): AuditStore =>
      backend.audit(apiWindowMs(config)),
  },
  PolicyStats,
  TrafficRecorder,
  InstanceStatus,
  AuditLog,
  AdminPlane,
];

/**
 * How long a state the admin API wrote is not taken for a direct hash write: an instance asks
 * about a state after reading it on two refreshes in a row.
 */
function apiWindowMs(config: RateLimitConfig): number {
  return Math.max(60_000, 3 * config.policyRefreshMs);
}
