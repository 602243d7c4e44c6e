import type { ExecutionResult, GraphQLError } from 'graphql';
import { createGraphQLError, handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { type AppError, InternalError, isAppError } from '../../shared/errors.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * Errors reach clients masked: a deliberate AppError keeps its message and gets its stable code in
 * `extensions.code` (and `field` for validation errors); GraphQL's own errors (syntax, validation,
 * limits, variable coercion, Yoga's request errors), which wrap no other error, pass with a GraphQL
 * code; anything else, with a path or not, becomes a generic `internal_error`.
 */
export function toClientError(error: unknown): GraphQLError {
  const graphQLError = isGraphQLError(error) ? error : undefined;
  const cause = rootCause(error);
  if (isAppError(cause)) return withCode(graphQLError, cause);
  if (graphQLError === undefined || isUnexpected(graphQLError))
    return withCode(graphQLError, new InternalError());
  return ownError(graphQLError);
}

/** What a client may see of an error's extensions; the rest (Yoga's `originalError`) stays inside. */
const CLIENT_EXTENSIONS = new Set(['code', 'field', 'http']);

/**
 * One of GraphQL's or Yoga's own errors, with its code (BAD_USER_INPUT when it has none) and
 * nothing else: Yoga puts the JSON parser's message, which echoes the body, in `originalError`.
 */
function ownError(error: GraphQLError): GraphQLError {
  const extensions = error.extensions ?? {};
  const exposable = Object.keys(extensions).every((key) => CLIENT_EXTENSIONS.has(key));
  if (exposable && extensions.code !== undefined) return error;
  const { code = 'BAD_USER_INPUT', field, http, originalError } = extensions;
  // Yoga tells a request it could not read by that `originalError`, and then answers with the
  // error's status under application/json too; without it, `spec: false` keeps that status.
  const status = originalError === undefined || !isObject(http) ? http : { ...http, spec: false };
  return rebuilt(error, error.message, {
    code,
    ...(field !== undefined && { field }),
    ...(status !== undefined && { http: status }),
  });
}

/**
 * Whether `toClientError` hides this error's details: those must go to the log instead. Deliberate
 * errors are AppErrors and GraphQL errors that wrap nothing else (which is why SafeInt's parsers
 * throw GraphQL errors); whatever else a GraphQL error wraps is a fault.
 */
export function isUnexpected(error: unknown): boolean {
  if (!isGraphQLError(error)) return true;
  const cause = rootCause(error);
  return cause !== undefined && !isAppError(cause);
}

/** The error a GraphQLError wraps, or undefined when it is GraphQL's own. */
function rootCause(error: unknown): unknown {
  let current = error;
  while (isGraphQLError(current)) {
    if (current.originalError == null) return undefined;
    current = current.originalError;
  }
  return current;
}

function withCode(located: GraphQLError | undefined, error: AppError): GraphQLError {
  const field = 'field' in error && typeof error.field === 'string' ? { field: error.field } : {};
  return rebuilt(located, error.message, { code: error.code, ...field });
}

/** A new error at `located`'s place in the document and the result, with only these extensions. */
function rebuilt(
  located: GraphQLError | undefined,
  message: string,
  extensions: Record<string, unknown>,
): GraphQLError {
  return createGraphQLError(message, {
    ...(located && {
      nodes: located.nodes,
      source: located.source,
      positions: located.positions,
      path: located.path,
    }),
    extensions,
  });
}

/**
 * Errors of a result without `data` (variables that cannot be coerced): the request was refused.
 * GraphQL over HTTP wants a 4xx for that under application/graphql-response+json; `spec: true` keeps
 * application/json at 200, as the spec's legacy rules require, like Yoga's validation errors.
 */
function asRequestErrors(errors: readonly GraphQLError[]): GraphQLError[] {
  return errors.map((error) =>
    rebuilt(error, error.message, { ...error.extensions, http: { status: 400, spec: true } }),
  );
}

/**
 * Translates execution and subscription errors before Yoga's masking sees them, while the request
 * is still at hand: unexpected errors are logged with the request id.
 */
export function useErrorTranslation(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      const context = args.contextValue as GraphQLContext;
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result, setResult }) => {
            if (result.errors?.length) setResult(translatedResult(result, context));
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

/** An operation's result with its errors translated (see useErrorTranslation); the same result without errors. */
export function translatedResult(result: ExecutionResult, context: GraphQLContext): ExecutionResult {
  if (!result.errors?.length) return result;
  const errors = translate(context)(result.errors);
  return { ...result, errors: result.data === undefined ? asRequestErrors(errors) : errors };
}

const translate = (context: GraphQLContext) => (errors: readonly GraphQLError[]) =>
  errors.map((error) => {
    const cause = rootCause(error);
    // Headers a deliberate error asks for (WWW-Authenticate for insufficient_scope) go on the
    // HTTP response, as REST sends them.
    if (isAppError(cause)) context.reply.headers(cause.headers);
    if (isUnexpected(error)) {
      context.req.log.error(
        { err: rootCause(error) ?? error, requestId: context.req.id, path: error.path },
        'unexpected GraphQL error',
      );
    }
    return toClientError(error);
  });

function asGraphQLError(error: unknown): GraphQLError {
  if (isGraphQLError(error)) return error;
  return createGraphQLError(error instanceof Error ? error.message : String(error), {
    originalError: error as Error,
  });
}

/**
 * By name, not `instanceof`: under Vitest, `graphql` loads once as ESM and once as CommonJS, and
 * an error from one copy is not an instance of the other's class.
 */
function isGraphQLError(error: unknown): error is GraphQLError {
  return error instanceof Error && error.name === 'GraphQLError';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
