/**
 * The exchanges the fuzz properties are made of, each with its invariant built in: any request
 * (2xx or 4xx, JSON), an admin PATCH (a 4xx leaves the policy key as it was, a 2xx answers a
 * valid policy view) and a policy's public route (200 or 429 whatever the thresholds now are).
 */
import type { WireBody } from './admin-arbitraries';
import { expectJsonAnswer, expectPolicyView, expectThat } from './fuzz-checks';
import type { FuzzRequest, FuzzResponse } from './fuzz-client';
import type { FuzzDemo } from './fuzz-demo';

export interface Answer {
  req: FuzzRequest;
  res: FuzzResponse;
  status: number;
  /** The parsed body (undefined for a 204). */
  json: unknown;
}

export class FuzzSession {
  constructor(readonly demo: FuzzDemo) {}

  /** Sends `req`, counted under `surface`; fails unless it is a 2xx or 4xx with JSON. */
  async call(surface: string, req: FuzzRequest): Promise<Answer> {
    const res = await this.demo.client.send(surface, req);
    return { req, res, status: res.status, json: expectJsonAnswer(req, res) };
  }

  /** `req` with the admin token (and `headers`). */
  admin(req: Omit<FuzzRequest, 'headers'>, headers: Record<string, string> = {}): FuzzRequest {
    return { ...req, headers: { ...this.demo.auth, ...headers } };
  }

  /** PATCHes `body` to policy `name`: a 4xx must leave its key as it was. */
  async patch(surface: string, name: string, body: WireBody): Promise<Answer> {
    const headers = body.contentType ? { 'content-type': body.contentType } : undefined;
    const path = `/admin/policies/${name}`;
    const req = this.admin({ method: 'PATCH', path, body: body.text }, headers);
    const before = await this.demo.policyState(name);
    const answer = await this.call(surface, req);
    if (answer.status >= 400) {
      const after = await this.demo.policyState(name);
      const why = `a ${answer.status} changed the policy key from ${before} to ${after}`;
      expectThat(after === before, why, req, answer.res);
    } else {
      expectPolicyView(answer.json, req, answer.res);
    }
    return answer;
  }

  /** GETs policy `name`'s route from `from`: 200 or 429, whatever its thresholds are now. */
  async route(surface: string, name: string, from: string): Promise<void> {
    const path = this.demo.policies.get(name);
    if (path === undefined) return; // the admin's own failed-token policy limits no route
    const { req, res, status } = await this.call(surface, { method: 'GET', path, from });
    expectThat(status === 200 || status === 429, 'expected 200 or 429', req, res);
  }

  /** GETs one policy, or all, and checks every view. */
  async views(surface: string, name?: string): Promise<void> {
    const path = name === undefined ? '/admin/policies' : `/admin/policies/${name}`;
    const { req, res, json } = await this.call(surface, this.admin({ method: 'GET', path }));
    for (const view of name === undefined ? (json as unknown[]) : [json]) {
      expectPolicyView(view, req, res);
    }
  }
}

/** A path segment decoded as Express decodes it (undefined when it is malformed). */
export function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
