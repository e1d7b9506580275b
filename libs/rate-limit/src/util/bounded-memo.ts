/**
 * Remembers `fn`'s results for recently seen short strings (client addresses, identities), so a
 * busy client's value is computed once rather than per request. Bounded by count (cleared when
 * full: cheaper than an LRU, and a miss only costs one call) and by input length, since inputs
 * may be client-controlled.
 */
export function boundedMemo(
  fn: (input: string) => string,
  maxEntries = 10_000,
  maxInputLength = 128,
): (input: string) => string {
  const results = new Map<string, string>();
  return (input) => {
    let result = results.get(input);
    if (result === undefined) {
      result = fn(input);
      if (input.length > maxInputLength) return result;
      if (results.size >= maxEntries) results.clear();
      results.set(input, result);
    }
    return result;
  };
}
