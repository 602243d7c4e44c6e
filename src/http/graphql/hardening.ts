import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { costLimitPlugin } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { ASTVisitor, FieldNode, GraphQLError, ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * OWASP API4 (unrestricted resource consumption): every document is bounded before it runs. The
 * numbers leave room for real frontend queries and stop pathological ones: the largest page,
 * `pets(first: 100)` with every pet and page-info field, has depth 4 and costs 3275 (armor's cost
 * multiplies by a literal `first`; with a variable the application's cap of 100 still holds,
 * and the alias limit bounds how many lists one request can ask for). Introspection queries are
 * exempt from depth and cost, and are switched off entirely where configured.
 */
export const GRAPHQL_LIMITS = Object.freeze({
  maxDepth: 8,
  maxAliases: 15,
  maxTokens: 1000,
  maxCost: 5000,
  maxDirectives: 10,
});

export function hardeningPlugins(options: { introspection: boolean }): Plugin[] {
  const { maxTokens, maxDepth, maxAliases, maxDirectives, maxCost } = GRAPHQL_LIMITS;
  const plugins: Plugin[] = [
    // A parse error: the document is never built.
    maxTokensPlugin({
      n: maxTokens,
      onReject: [
        () => {
          throw createGraphQLError(`The document has more than ${maxTokens} tokens, the limit.`);
        },
      ],
    }),
    maxDepthPlugin({
      n: maxDepth,
      ...asValidationError((found) => `Query depth ${found} exceeds the limit of ${maxDepth}.`),
    }),
    maxAliasesPlugin({
      n: maxAliases,
      ...asValidationError((found) => `${found} aliases exceed the limit of ${maxAliases}.`),
    }),
    maxDirectivesPlugin({
      n: maxDirectives,
      ...asValidationError((found) => `${found} directives exceed the limit of ${maxDirectives}.`),
    }),
    costLimitPlugin({
      maxCost,
      ...asValidationError((found) => `Query cost ${found} exceeds the limit of ${maxCost}.`),
    }),
  ];
  if (options.introspection) return plugins;
  // Without introspection, "Did you mean …?" suggestions would still leak the schema.
  return [...plugins, noIntrospection, blockFieldSuggestionsPlugin()];
}

/**
 * Armor throws by default, which skips the other rules and reaches clients without a code; reported
 * like any validation error, a limit gets GRAPHQL_VALIDATION_FAILED and the spec's 400. Armor's own
 * message starts "Syntax Error:", which these are not: `describe` states the limit instead, given
 * the amount found (read from armor's message, its only carrier).
 */
function asValidationError(describe: (found: string) => string) {
  return {
    propagateOnRejection: false,
    onReject: [
      (context: ValidationContext | null, error: GraphQLError) => {
        const found = /found (\d+)\.$/.exec(error.message)?.[1] ?? 'more';
        context?.reportError(createGraphQLError(describe(found)));
      },
    ],
  };
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** Like graphql's NoSchemaIntrospectionCustomRule; `__typename` stays allowed. */
const noIntrospection: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule((context: ValidationContext): ASTVisitor => ({
      Field(node: FieldNode) {
        if (!INTROSPECTION_FIELDS.has(node.name.value)) return;
        context.reportError(
          createGraphQLError(
            `GraphQL introspection is disabled here, but the query asked for "${node.name.value}".`,
            {
              nodes: node,
            },
          ),
        );
      },
    }));
  },
};
