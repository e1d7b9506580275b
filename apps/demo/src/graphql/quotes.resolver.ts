import {
  Args,
  Field,
  Int,
  Mutation,
  ObjectType,
  Parent,
  Query,
  ResolveField,
  Resolver,
} from '@nestjs/graphql';
import { RateLimit } from '@app/rate-limit';

@ObjectType()
export class Quote {
  @Field(() => Int)
  id!: number;

  @Field()
  text!: string;
}

const QUOTES = ['Measure twice, cut once.', 'Slow is smooth, smooth is fast.', 'Less, but better.'];

/**
 * GraphQL on the demo: a query and a mutation limited per client IP (the HTTP request behind
 * the operation), and a field resolver with a limit of its own. Limited fields are nullable: a
 * rejected non-null field would null its parent, for a root field the whole answer.
 */
@Resolver(() => Quote)
export class QuotesResolver {
  private likes = 0;

  @Query(() => Quote, { nullable: true })
  @RateLimit({ name: 'demo.graphql-quote', algo: 'fixed-window', limit: 5, window: '10s' })
  quote(@Args('id', { type: () => Int }) id: number): Quote {
    return { id, text: QUOTES[Math.abs(id) % QUOTES.length] };
  }

  /** Not limited, as `GET /api/unlimited`: what a resolver costs without the limiter. */
  @Query(() => Int)
  quoteCount(): number {
    return QUOTES.length;
  }

  @Mutation(() => Int, { nullable: true })
  @RateLimit({ name: 'demo.graphql-like', algo: 'sliding-window', limit: 3, window: '10s' })
  like(): number {
    return ++this.likes;
  }

  /** Costly to compute: two per 10 s per client, however the query is shaped. */
  @ResolveField(() => String, { nullable: true })
  @RateLimit({ name: 'demo.graphql-translation', algo: 'gcra', limit: 2, window: '10s' })
  translation(@Parent() quote: Quote): string {
    return quote.text.split('').reverse().join('');
  }
}
