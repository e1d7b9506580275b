/**
 * How deep admin input may nest objects and arrays. Every admin body and query is flat (depth
 * 1); a value nested by mistake still reaches validation and is refused naming its field. Far
 * deeper, class-transformer's recursion overflows the stack (about 3,000 levels, 24 kB of JSON,
 * well under the body limit) and would answer 500.
 */
export const MAX_INPUT_DEPTH = 16;

/**
 * Whether `value` nests objects or arrays more than `max` levels deep (a scalar is 0, `{}` is
 * 1). Walked level by level without recursion, and never below `max`: the check itself cannot
 * overflow the stack, and costs at most one look at each value it passes.
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  let level: unknown[] = [value];
  for (let depth = 0; ; depth++) {
    const objects = level.filter(isObject);
    if (objects.length === 0) return false;
    if (depth === max) return true;
    const next: unknown[] = [];
    for (const object of objects) for (const inner of Object.values(object)) next.push(inner);
    level = next;
  }
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}
