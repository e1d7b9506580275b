/** Bounds from the specification, shared by bootstrap validation and the admin API. */
export const MAX_LIMIT = 1_000_000_000;
export const MIN_WINDOW_MS = 1;
export const MAX_WINDOW_MS = 366 * 86_400_000;
/**
 * The sliding-window log keeps one sorted-set member per admitted unit in the window, so its
 * work and memory per client grow with the limit; above this, use sliding-window-counter.
 */
export const MAX_SLIDING_WINDOW_LIMIT = 10_000;
