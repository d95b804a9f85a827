import { ApolloArmor } from '@escape.tech/graphql-armor';
import type { ValidationRule } from 'graphql';

export type ArmorConfig = NonNullable<ConstructorParameters<typeof ApolloArmor>[0]>;

/** graphql-armor's validation rules for the protections `config` turns on; every other one is off. */
export function armorRules(config: ArmorConfig): ValidationRule[] {
  const off = { enabled: false };
  return new ApolloArmor({
    maxDepth: off,
    maxAliases: off,
    maxDirectives: off,
    costLimit: off,
    // parseOptions() does this job: armor's Apollo token plugin throws from a plugin hook, which Apollo 5 answers with HTTP 500.
    maxTokens: off,
    // hideSuggestionsPlugin() does this job: armor's pattern misses enum-value suggestions.
    blockFieldSuggestion: off,
    ...config,
  }).protect().validationRules;
}
