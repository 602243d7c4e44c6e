import type { ExecutionResult } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './builder.ts';

/**
 * `extensions.storePosition` (a decimal string) on every result whose request wrote: the position of
 * its last event, as REST's X-Store-Position; and on every event of a subscription: that event's
 * position, which `after` takes to resume the subscription there.
 */
export function useStorePosition(): Plugin<GraphQLContext> {
  const withPosition: Parameters<typeof handleStreamOrSingleExecutionResult>[1] = ({
    result,
    setResult,
    args,
  }) => {
    const positioned = withStorePosition(result, args.contextValue as GraphQLContext);
    if (positioned !== result) setResult(positioned);
  };
  return {
    onExecute: () => ({
      onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, withPosition),
    }),
    onSubscribe: () => ({
      onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, withPosition),
    }),
  };
}

/** The result with its request's store position, or the same result when the request wrote nothing. */
export function withStorePosition(result: ExecutionResult, context: GraphQLContext): ExecutionResult {
  const position = context.req.storePosition;
  if (position === undefined) return result;
  return { ...result, extensions: { ...result.extensions, storePosition: position.toString() } };
}

/** A subscription's resolver tells the position of the event it resolves (see useStorePosition). */
export function noteStorePosition(context: GraphQLContext, position: bigint): void {
  context.req.storePosition = position;
}
