/** The demo's limited public routes: one per algorithm, stacked policies, a custom key, tiers. */
export const LIMITED_ROUTES = [
  '/api/fixed-window',
  '/api/sliding-window',
  '/api/sliding-window-counter',
  '/api/token-bucket',
  '/api/leaky-bucket',
  '/api/gcra',
  '/api/stacked',
  '/api/keyed',
  '/api/plan',
] as const;

/** Every public route of the demo: the limited ones and /api/unlimited. */
export const PUBLIC_ROUTES = [...LIMITED_ROUTES, '/api/unlimited'] as const;
