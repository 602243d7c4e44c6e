import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { ASTVisitor, ExecutionResult, FieldNode, GraphQLError, ValidationContext } from 'graphql';
import { createGraphQLError, handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { costLimit } from './cost.ts';

/**
 * OWASP API4 (unrestricted resource consumption): every document is bounded before it runs. The
 * numbers leave room for real frontend queries and stop pathological ones: the largest page,
 * `pets(first: 100)` with every pet and page-info field but `history`, has depth 4 and costs 4062.5
 * (3275 with `cursor`, `id name categoryId status` and `hasNextPage endCursor`), whether its 100 is
 * written in the document or given in a variable. Introspection queries are exempt from
 * depth and cost, and are switched off entirely where configured.
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
    // When the operation runs, with its variables: see cost.ts.
    costLimit(maxCost),
    noProtoAlias,
  ];
  if (!hidesSuggestions(options)) return plugins;
  return [...plugins, noIntrospection, hideSuggestions];
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

/** Where introspection is off, "Did you mean …?" suggestions would still leak the schema. */
export function hidesSuggestions(options: { introspection: boolean }): boolean {
  return !options.introspection;
}

const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/**
 * graphql-jit builds results as object literals, in which a member named `__proto__` sets the
 * object's prototype instead: `{ inventory { __proto__: sold } }` answered without `sold`. No field
 * can have that name (names starting with `__` are reserved); only an alias can.
 */
const noProtoAlias: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule((context: ValidationContext): ASTVisitor => ({
      Field(node: FieldNode) {
        if (node.alias?.value !== '__proto__') return;
        context.reportError(
          createGraphQLError(
            'The alias "__proto__" is refused: a result object cannot hold a member of that name. Choose another alias.',
            { nodes: node },
          ),
        );
      },
    }));
  },
};

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

/**
 * graphql-js's own `hideSuggestions` (16.10 and later), in validation and in execution, where
 * variables are coerced: no "Did you mean …?" for fields, arguments, types, enum values or input
 * fields. Armor's block-field-suggestions plugin rewrote validation messages only, and missed enum
 * values ("Did you mean the enum value …"). @graphql-tools/executor 2.1, Yoga's executor, does not
 * pass the flag on to graphql's coerceInputValue, so a misspelt enum value in a variable would
 * still be suggested: what execution reports is cleaned as well. graphql-jit suggests nothing.
 */
const hideSuggestions: Plugin = {
  onValidate({ validateFn, setValidationFn }) {
    setValidationFn((schema, documentAST, rules, options, typeInfo) =>
      validateFn(schema, documentAST, rules, { ...options, hideSuggestions: true }, typeInfo),
    );
  },
  onExecute({ executeFn, setExecuteFn }) {
    setExecuteFn((args) => executeFn({ ...args, hideSuggestions: true } as typeof args));
    return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, cleanResult) };
  },
  onSubscribe({ subscribeFn, setSubscribeFn }) {
    setSubscribeFn((args) => subscribeFn({ ...args, hideSuggestions: true } as typeof args));
    return {
      onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, cleanResult),
    };
  },
};

/** graphql-js's didYouMean: " Did you mean "a", "b", or "c"?" or " Did you mean the enum value "a"?". */
const SUGGESTION = / Did you mean [^?]*\?/g;

function cleanResult({
  result,
  setResult,
}: {
  result: ExecutionResult;
  setResult: (result: ExecutionResult) => void;
}): void {
  const cleaned = withoutSuggestions(result);
  if (cleaned !== result) setResult(cleaned);
}

/** The result with no suggestion in its errors' messages; the same result when none has one. */
export function withoutSuggestions(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.some((error) => error.message.includes(' Did you mean '))) return result;
  return {
    ...result,
    errors: result.errors.map((error) =>
      createGraphQLError(error.message.replace(SUGGESTION, ''), {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        originalError: error.originalError,
        extensions: error.extensions,
      }),
    ),
  };
}
