import { ADAPTIVE_AUDIT_POLICY } from '../runtime/audit/audit-entry';
import { Injectable } from '@nestjs/common';
import { PolicyRegistry } from '../registry/policy-registry';
import type { AuditEntry } from '../runtime/audit/audit-entry';
import { AuditLog } from '../runtime/audit/audit-log.service';
import { InstanceStatus } from '../runtime/instances/instance-status.service';
import type { InstancesView } from '../runtime/instances/instance-view';
import { TrafficRecorder, type TrafficSeries } from '../runtime/traffic/traffic-recorder.service';
import { fromStore } from './store-actions';

/**
 * What the dashboard watches, independent of HTTP: traffic, the most rejected clients, the
 * audit log, the live instances. Unknown policies are UnknownPolicyError; Redis failures
 * RateLimitStoreError (nothing to show), as in the rest of the admin API.
 */
@Injectable()
export class RateLimitAdminActivity {
  constructor(
    private readonly registry: PolicyRegistry,
    private readonly traffic: TrafficRecorder,
    private readonly audit: AuditLog,
    private readonly instances: InstanceStatus,
  ) {}

  /** Every policy's series (names sorted), or the named policy's alone. */
  series(minutes: number, name?: string): Promise<TrafficSeries> {
    if (name !== undefined) this.registry.require(name);
    const names = name === undefined ? this.registry.names().sort() : [name];
    return fromStore(() => this.traffic.series(names, minutes));
  }

  topRejected(name: string, minutes: number, count: number): Promise<[string, number][]> {
    this.registry.require(name);
    return fromStore(() => this.traffic.topRejected(name, minutes, count));
  }

  auditLog(policy: string | undefined, limit: number): Promise<AuditEntry[]> {
    // "(adaptive)": adaptive protection's entries, which no policy name can be.
    if (policy !== undefined && policy !== ADAPTIVE_AUDIT_POLICY) this.registry.require(policy);
    return fromStore(() => this.audit.list(policy, limit));
  }

  liveInstances(): Promise<InstancesView> {
    return this.instances.list();
  }
}
