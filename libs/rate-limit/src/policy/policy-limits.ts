/** Bounds from the specification, shared by bootstrap validation and the admin API. */
export const MAX_LIMIT = 1_000_000_000;
export const MIN_WINDOW_MS = 1;
export const MAX_WINDOW_MS = 366 * 86_400_000;
