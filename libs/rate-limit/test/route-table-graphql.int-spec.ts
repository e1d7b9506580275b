import { Query, ResolveField, Resolver } from '@nestjs/graphql';
import { RateLimit } from '../src/decorators/rate-limit.decorator';
import { RateLimitConfigError } from '../src/errors/rate-limit-config.error';
import { bootApp as boot, bootError } from './support/boot-app';
import { RouteTable } from '../src/registry/route-table';

@RateLimit({ limit: 5, window: '1m' })
@Resolver()
class QuotesResolver {
  @Query(() => String)
  quote(): string {
    return 'quote';
  }
}

@Resolver()
class AuthorResolver {
  @RateLimit({ limit: 5, window: '1m' })
  @ResolveField(() => String)
  bio(): string {
    return 'bio';
  }
}

describe('RouteTable at bootstrap: GraphQL field resolvers', () => {
  it('fails without GraphQL options asking guards to run on field resolvers', async () => {
    const error = await bootError({ providers: [AuthorResolver] });

    expect(error).toBeInstanceOf(RateLimitConfigError);
    expect(error.message).toBe(
      'Invalid rate limit options on AuthorResolver.bio: "@RateLimit()" is on a GraphQL field ' +
        'resolver, and guards run on field resolvers only with ' +
        "fieldResolverEnhancers: ['guards'] in the GraphQLModule options",
    );
  });

  it("boots when the GraphQL options have fieldResolverEnhancers: ['guards']", async () => {
    const app = await boot({
      providers: [
        AuthorResolver,
        { provide: 'GqlModuleOptions', useValue: { fieldResolverEnhancers: ['guards'] } },
      ],
    });
    const route = app.get(RouteTable).routeFor(AuthorResolver, AuthorResolver.prototype.bio);

    expect(route?.kind).toBe('graphql-field');
    expect(route?.policies.map((p) => p.name)).toEqual(['AuthorResolver.bio']);
    await app.close();
  });

  it("fails when fieldResolverEnhancers lacks 'guards'", async () => {
    const error = await bootError({
      providers: [
        AuthorResolver,
        { provide: 'GqlModuleOptions', useValue: { fieldResolverEnhancers: ['interceptors'] } },
      ],
    });

    expect(error.where).toBe('AuthorResolver.bio');
  });
});

describe('RouteTable at bootstrap: resolvers made by factory and value providers', () => {
  // GraphQL serves the methods of any provider's instance, and the guard's context names the
  // instance's constructor as the class: the class-level limit applies to those calls.
  it.each([
    ['factory', { provide: QuotesResolver, useFactory: () => new QuotesResolver() }],
    ['value', { provide: 'QUOTES', useValue: new QuotesResolver() }],
  ])(
    'counts the limited resolver of a %s provider as a GraphQL handler',
    async (_kind, provider) => {
      const app = await boot({ providers: [provider] });

      expect(app.get(RouteTable).limitedKinds()).toEqual(new Set(['graphql']));
      await app.close();
    },
  );
});
