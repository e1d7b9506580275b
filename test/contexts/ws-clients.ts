// Moved to libs/rate-limit/test/e2e/fixtures/ws-clients.ts; kept only for
// test/load/contexts-fleet.e2e-spec.ts until it imports that path (then delete this file).
export * from '../../libs/rate-limit/test/e2e/fixtures/ws-clients';
