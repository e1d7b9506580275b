const REJECTION = Symbol.for('nest-redis-rate-limit.graphql-rejection');

/** What graphql-js's `GraphQLError` constructor takes here (the class comes from the app's graphql). */
export type GraphqlErrorClass = new (
  message: string,
  options: { path?: readonly (string | number)[]; extensions: Record<string, unknown> },
) => Error;

/** The resolver's `info`, as far as a located error needs it. */
interface ResolveInfo {
  path?: ResponsePath;
  fieldNodes?: readonly { loc?: { start: number; source: { body: string } } }[];
}
interface ResponsePath {
  prev: ResponsePath | undefined;
  key: string | number;
}

/**
 * The errors a limited GraphQL resolver is rejected with: `GraphQLError`s with the rejection in
 * their `extensions`, already located (`path`, `locations`) so that graphql-js reports them as
 * they are. Matches with `instanceof` and `@Catch()`; `GraphqlRejectionFilter` keeps Nest from
 * logging them as errors.
 * @publicApi
 */
export abstract class GraphqlRejection {
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && REJECTION in value;
  }
}

/**
 * A rejection of one resolver call. graphql-js would locate an error without a `path` itself,
 * scanning the whole query text for line breaks once per error: with thousands of rejected
 * aliases in one long query, that scan was most of the answer's time.
 */
export function locatedRejection(
  GraphQLError: GraphqlErrorClass,
  message: string,
  extensions: Record<string, unknown>,
  info: ResolveInfo | undefined,
): Error {
  const error = new GraphQLError(message, { path: pathOf(info?.path), extensions });
  const loc = info?.fieldNodes?.[0]?.loc;
  if (loc)
    Object.defineProperty(error, 'locations', { value: [locationOf(loc.source, loc.start)] });
  Object.defineProperty(error, REJECTION, { value: true });
  return error;
}

function pathOf(path: ResponsePath | undefined): (string | number)[] | undefined {
  if (!path) return undefined;
  const keys: (string | number)[] = [];
  for (let at: ResponsePath | undefined = path; at; at = at.prev) keys.push(at.key);
  return keys.reverse();
}

/** Where each line of a query text starts; parsed documents are cached, so are these. */
const lineStarts = new WeakMap<object, number[]>();

/** Line and column (from 1) of a position, as graphql-js's getLocation counts them. */
function locationOf(source: { body: string }, position: number): { line: number; column: number } {
  let starts = lineStarts.get(source);
  if (!starts) {
    starts = [0];
    for (const match of source.body.matchAll(/\r\n|[\n\r]/g)) {
      starts.push(match.index + match[0].length);
    }
    lineStarts.set(source, starts);
  }
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= position) low = middle;
    else high = middle - 1;
  }
  return { line: low + 1, column: position + 1 - starts[low] };
}
