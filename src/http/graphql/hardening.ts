import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * OWASP API4 (unrestricted resource consumption): every document is bounded before it runs. The
 * numbers leave room for real frontend queries (a page of pets with page info is depth 4, cost
 * about 20) and stop pathological ones. Introspection queries are exempt from depth and cost,
 * and are switched off entirely where configured.
 */
export const GRAPHQL_LIMITS = Object.freeze({
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxCost: 1000,
  maxDirectives: 10,
});

export function hardeningPlugins(options: { introspection: boolean }): Plugin[] {
  const plugins: Plugin[] = [
    maxTokensPlugin({ n: GRAPHQL_LIMITS.maxTokens }),
    maxDepthPlugin({ n: GRAPHQL_LIMITS.maxDepth }),
    maxAliasesPlugin({ n: GRAPHQL_LIMITS.maxAliases }),
    maxDirectivesPlugin({ n: GRAPHQL_LIMITS.maxDirectives }),
    costLimitPlugin({ maxCost: GRAPHQL_LIMITS.maxCost }),
  ];
  if (options.introspection) return plugins;
  // Without introspection, "Did you mean …?" suggestions would still leak the schema.
  return [...plugins, noIntrospection, blockFieldSuggestionsPlugin()];
}

const noIntrospection: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(NoSchemaIntrospectionCustomRule);
  },
};
