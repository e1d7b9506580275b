import { CATCH_WATERMARK, FILTER_CATCH_EXCEPTIONS } from '@nestjs/common/constants';
import { GraphQLError } from 'graphql';
import { locatedRejection } from './graphql-rejection';
import { GraphqlRejectionFilter } from './graphql-rejection.filter';

/** How Nest picks a filter for an exception: the first whose @Catch() types it is an instance of. */
function catches(exception: unknown): boolean {
  const types = Reflect.getMetadata(FILTER_CATCH_EXCEPTIONS, GraphqlRejectionFilter) as (new (
    ...args: never[]
  ) => unknown)[];
  return types.some((type) => exception instanceof type);
}

describe('GraphqlRejectionFilter', () => {
  const rejection = locatedRejection(GraphQLError, 'Too Many Requests', { code: 'X' }, undefined);

  it('is a filter that catches the GraphQL rejections only', () => {
    expect(Reflect.getMetadata(CATCH_WATERMARK, GraphqlRejectionFilter)).toBe(true);
    expect(catches(rejection)).toBe(true);
    expect(catches(new GraphQLError('Too Many Requests'))).toBe(false);
    expect(catches(new Error('boom'))).toBe(false);
    expect(catches(null)).toBe(false);
  });

  it('hands the rejection back as the resolver result, which graphql-js reports as the field error', () => {
    expect(new GraphqlRejectionFilter().catch(rejection)).toBe(rejection);
  });
});
