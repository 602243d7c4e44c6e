import type { FastifyReply, FastifyRequest } from 'fastify';
import { type DocumentNode, type ExecutionResult, getOperationAST, type GraphQLSchema } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { andThen, type MaybePromise } from '../../shared/maybe-promise.ts';
import { operationCost } from './cost.ts';
import { queryTextCache } from './query-text-cache.ts';
import { forgetScopeCache } from './scope-cache.ts';
import { translatedResult } from './error-translation.ts';
import { GRAPHQL_LIMITS, hidesSuggestions, withoutSuggestions } from './hardening.ts';
import { mutationFields } from './mutation-fields.ts';
import { withStorePosition } from './store-position.ts';
import { graphqlContext, hasOneOperation, JIT_COMPILER_OPTIONS, type YogaOptions } from './yoga.ts';

type Variables = Readonly<Record<string, unknown>> | null | undefined;

/** An operation whose document went through Yoga's whole pipeline once, ready to run again. */
export type CompiledOperation = {
  run(req: FastifyRequest, reply: FastifyReply, variables: Variables): MaybePromise<ExecutionResult>;
};

export type CompiledOperations = {
  /** The compiled operation for a request, when nothing about it needs Yoga's pipeline. */
  find(
    query: string,
    operationName: string | null | undefined,
    variables: Variables,
  ): CompiledOperation | undefined;
  /** Keeps a document that has just been parsed and validated, limits included, if it may skip them next time. */
  remember(query: string, document: DocumentNode): void;
};

/**
 * Operations whose query text already passed Yoga's parser and validation (the token, depth,
 * alias, directive and mutation-field limits among them) run straight from graphql-jit's compiled
 * query, by their text, without the per-request plugin pipeline and the garbage it makes. What
 * the plugins do per request is done here in their order (see `yoga.ts`): the cost limit (which
 * depends on the variables: a request over it goes to the pipeline, which refuses it), hiding
 * suggestions, the store position, error translation. Masking would change nothing after
 * translation, which gives only client errors. Left to the pipeline: documents with several
 * operations (graphql-jit would ignore the operation name), subscriptions, and mutations with
 * several fields, which charge the rate limit again before they run.
 */
export function compiledOperations(
  schema: GraphQLSchema,
  options: Pick<YogaOptions, 'application' | 'closing' | 'introspection'> & {
    /** The characters of query text kept compiled, in all (see query-text-cache.ts). */
    readonly textBudget?: number;
  },
): CompiledOperations {
  const createContext = graphqlContext(options);
  const hideSuggestions = hidesSuggestions(options);
  // As Yoga's parser cache: the least recently used leave first, once the texts fill the budget.
  const byQuery = queryTextCache<CompiledEntry>(options.textBudget);

  const finish = (result: ExecutionResult, context: ReturnType<typeof createContext>) =>
    translatedResult(
      withStorePosition(hideSuggestions ? withoutSuggestions(result) : result, context),
      context,
    );

  return {
    find(query, operationName, variables) {
      const entry = byQuery.get(query);
      if (entry === undefined) return undefined;
      if (operationName != null && operationName !== entry.operationName) return undefined;
      if (!entry.withinCost(variables)) return undefined;
      return entry;
    },
    remember(query, document) {
      if (byQuery.has(query)) return;
      const compiled = compile(schema, document);
      if (compiled === undefined) return;
      byQuery.set(query, {
        ...compiled,
        run(req, reply, variables) {
          const context = createContext(req, reply);
          return andThen(compiled.jit.query(undefined, context, variables), (result) => {
            forgetScopeCache(context);
            return finish(result, context);
          });
        },
      });
    },
  };
}

type CompiledEntry = CompiledOperation & {
  readonly operationName: string | undefined;
  withinCost(variables: Variables): boolean;
};

function compile(
  schema: GraphQLSchema,
  document: DocumentNode,
):
  | { jit: CompiledQuery; operationName: string | undefined; withinCost(variables: Variables): boolean }
  | undefined {
  if (!hasOneOperation(document)) return undefined;
  const operation = getOperationAST(document);
  if (operation == null || operation.operation === 'subscription') return undefined;
  if (mutationFields(document, undefined) > 1) return undefined;
  const withinCost = (variables: Variables) =>
    Math.ceil(operationCost(document, undefined, variables)) <= GRAPHQL_LIMITS.maxCost;
  // Without variables, the cost is the same on every request.
  const fixedCost = (operation.variableDefinitions ?? []).length === 0;
  if (fixedCost && !withinCost(undefined)) return undefined;
  const jit = compileQuery(schema, document, undefined, JIT_COMPILER_OPTIONS);
  if (!isCompiledQuery(jit)) return undefined;
  return { jit, operationName: operation.name?.value, withinCost: fixedCost ? () => true : withinCost };
}
