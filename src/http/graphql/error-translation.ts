import { GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { type AppError, InternalError, isAppError } from '../../errors.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * Errors reach clients masked: a deliberate AppError keeps its message and gets its stable code in
 * `extensions.code` (and `field` for validation errors); GraphQL's own request errors (syntax,
 * validation, limits, variable coercion) pass with a GraphQL code; anything else, including
 * GraphQL's own errors inside a field (a resolver broke the schema's promise), becomes a generic
 * `internal_error`.
 */
export function toClientError(error: unknown): GraphQLError {
  const graphQLError = error instanceof GraphQLError ? error : undefined;
  const cause = rootCause(error);
  if (isAppError(cause)) return withCode(graphQLError, cause);
  if (isUnexpected(error)) return withCode(graphQLError, new InternalError());
  if (graphQLError!.extensions.code !== undefined) return graphQLError!;
  // Before execution: the request's variables did not fit their types.
  return new GraphQLError(graphQLError!.message, {
    nodes: graphQLError!.nodes,
    extensions: { ...graphQLError!.extensions, code: 'BAD_USER_INPUT' },
  });
}

/** Whether `toClientError` hides this error's details: those must go to the log instead. */
export function isUnexpected(error: unknown): boolean {
  const cause = rootCause(error);
  if (cause !== undefined) return !isAppError(cause);
  const graphQLError = error as GraphQLError;
  return graphQLError.path !== undefined && graphQLError.extensions.code === undefined;
}

/** The error a GraphQLError wraps, or undefined when it is GraphQL's own. */
function rootCause(error: unknown): unknown {
  let current = error;
  while (current instanceof GraphQLError) {
    if (current.originalError == null) return undefined;
    current = current.originalError;
  }
  return current;
}

function withCode(located: GraphQLError | undefined, error: AppError): GraphQLError {
  const field = 'field' in error && typeof error.field === 'string' ? { field: error.field } : {};
  return new GraphQLError(error.message, {
    ...(located && {
      nodes: located.nodes,
      source: located.source,
      positions: located.positions,
      path: located.path,
    }),
    extensions: { code: error.code, ...field },
  });
}

/**
 * Translates execution and subscription errors before Yoga's masking sees them, while the request
 * is still at hand: unexpected errors are logged with the request id.
 */
export function useErrorTranslation(): Plugin<GraphQLContext> {
  const translate = (context: GraphQLContext) => (errors: readonly GraphQLError[]) =>
    errors.map((error) => {
      if (isUnexpected(error)) {
        context.req.log.error(
          { err: rootCause(error) ?? error, requestId: context.req.id, path: error.path },
          'unexpected GraphQL error',
        );
      }
      return toClientError(error);
    });
  return {
    onExecute({ args }) {
      const translateAll = translate(args.contextValue as GraphQLContext);
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            if (result.errors?.length) setResult({ ...result, errors: translateAll(result.errors) });
          }),
      };
    },
    onSubscribe({ args }) {
      const translateAll = translate(args.contextValue as GraphQLContext);
      return {
        onSubscribeResult: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            if (result.errors?.length) setResult({ ...result, errors: translateAll(result.errors) });
          }),
        onSubscribeError: ({ error, setError }) => setError(translateAll([asGraphQLError(error)])[0]),
      };
    },
  };
}

function asGraphQLError(error: unknown): GraphQLError {
  if (error instanceof GraphQLError) return error;
  return new GraphQLError(error instanceof Error ? error.message : String(error), {
    originalError: error as Error,
  });
}
