import { Injectable, NotFoundException } from '@nestjs/common';
import type { KeyUsagePage, PolicyPatch, PolicyView } from './policy-view.interface';

/**
 * What the admin API does, independent of HTTP: list and change policies, show and reset
 * per-identity usage. Throws NotFoundException for an unknown policy and BadRequestException
 * for a change that is invalid as a whole (e.g. a burst on an algorithm without one is fine,
 * but a combination out of range is not); nothing is written then.
 */
@Injectable()
export class RateLimitAdminService {
  async list(): Promise<PolicyView[]> {
    throw new NotFoundException('not implemented yet');
  }

  async get(name: string): Promise<PolicyView> {
    throw new NotFoundException(`Unknown policy "${name}"`);
  }

  async update(name: string, _patch: PolicyPatch): Promise<PolicyView> {
    throw new NotFoundException(`Unknown policy "${name}"`);
  }

  async clearOverride(name: string): Promise<PolicyView> {
    throw new NotFoundException(`Unknown policy "${name}"`);
  }

  async keys(name: string, _cursor: string | undefined, _count: number): Promise<KeyUsagePage> {
    throw new NotFoundException(`Unknown policy "${name}"`);
  }

  async resetKey(name: string, _identity: string): Promise<void> {
    throw new NotFoundException(`Unknown policy "${name}"`);
  }
}
