import type { DecisionOutcome } from './decision-outcome';

/** How many decisions of a policy had each outcome (the stats, summed over every instance). */
export type DecisionCounts = Record<DecisionOutcome, number>;
