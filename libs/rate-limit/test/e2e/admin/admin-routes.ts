/** The admin API's routes, on a fixture app with policies fx.gcra and fx.plan (tiered). */
export type Method = 'get' | 'patch' | 'put' | 'delete';

/** Every admin route: method, OpenAPI path, a concrete URL, and its success status. */
export const ADMIN_ROUTES: { method: Method; path: string; url: string; ok: 200 | 204 }[] = [
  { method: 'get', path: '/admin/policies', url: '/admin/policies', ok: 200 },
  { method: 'get', path: '/admin/policies/{name}', url: '/admin/policies/fx.gcra', ok: 200 },
  { method: 'patch', path: '/admin/policies/{name}', url: '/admin/policies/fx.gcra', ok: 200 },
  {
    method: 'delete',
    path: '/admin/policies/{name}/override',
    url: '/admin/policies/fx.gcra/override',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/keys',
    url: '/admin/policies/fx.gcra/keys',
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/keys/{identity}',
    url: `/admin/policies/fx.gcra/keys/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 204,
  },
  {
    method: 'patch',
    path: '/admin/policies/{name}/tiers/{tier}',
    url: '/admin/policies/fx.plan/tiers/pro',
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/tiers/{tier}/override',
    url: '/admin/policies/fx.plan/tiers/pro/override',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/clients',
    url: '/admin/policies/fx.plan/clients',
    ok: 200,
  },
  {
    method: 'get',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/fx.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 200,
  },
  {
    method: 'put',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/fx.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 200,
  },
  {
    method: 'delete',
    path: '/admin/policies/{name}/clients/{identity}',
    url: `/admin/policies/fx.plan/clients/${encodeURIComponent('ip:1.2.3.4')}`,
    ok: 204,
  },
];
