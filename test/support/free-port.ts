// The one free-port helper lives with the other process helpers.
export { findFreePort as freePort } from '../../libs/rate-limit/test/support/processes/free-port';
