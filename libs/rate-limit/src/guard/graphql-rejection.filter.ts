import { Catch, type ExceptionFilter } from '@nestjs/common';
import { GraphqlRejection } from './graphql-rejection';

/**
 * Hands a GraphQL rejection back to the driver as the resolver's result (graphql-js reports a
 * returned error as the field's error) instead of letting Nest's exceptions handler log it as
 * an ERROR with its stack: a rejection is an expected outcome, and aliases can repeat it
 * thousands of times in one request. Catches nothing else; filters of the resolver's own come
 * first.
 */
@Catch(GraphqlRejection)
export class GraphqlRejectionFilter implements ExceptionFilter {
  catch(rejection: Error): Error {
    return rejection;
  }
}
