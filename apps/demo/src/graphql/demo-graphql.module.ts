import type { DynamicModule } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import { QuotesResolver } from './quotes.resolver';

export type GraphqlDriverName = 'apollo' | 'mercurius';

// Guards run on field resolvers only when asked to: the translation field has a limit.
const SHARED = {
  autoSchemaFile: true,
  path: '/graphql',
  fieldResolverEnhancers: ['guards'],
} as const;

/**
 * `/graphql` with Apollo (Express or Fastify) or Mercurius (Fastify). On Fastify, Apollo's
 * context must carry the reply for the rate-limit headers to be written.
 */
export function demoGraphqlModule(driver: GraphqlDriverName): DynamicModule {
  const graphql =
    driver === 'mercurius'
      ? GraphQLModule.forRoot<MercuriusDriverConfig>({
          ...SHARED,
          driver: MercuriusDriver,
          fieldResolverEnhancers: [...SHARED.fieldResolverEnhancers],
        })
      : GraphQLModule.forRoot<ApolloDriverConfig>({
          ...SHARED,
          driver: ApolloDriver,
          fieldResolverEnhancers: [...SHARED.fieldResolverEnhancers],
          context: apolloContext,
          // Apollo adds each error's stack (server paths) outside production; clients need none.
          includeStacktraceInErrorResponses: false,
        });
  return { module: DemoGraphqlModule, imports: [graphql], providers: [QuotesResolver] };
}

/** Express passes `{ req, res }`; Fastify passes `(request, reply)`. */
function apolloContext(first: { req?: unknown; res?: unknown }, reply?: unknown): object {
  return reply === undefined ? { req: first.req, res: first.res } : { req: first, reply };
}

export class DemoGraphqlModule {}
