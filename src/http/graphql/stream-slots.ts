import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { isAppError } from '../../shared/errors.ts';
import type { GraphQLContext } from './builder.ts';

/**
 * A subscription is an event stream: it holds one of its key's STREAMS_PER_KEY slots (see
 * ../stream-slots.ts) until its response closes. Taken here, once, before any subscription field
 * subscribes, so that every subscription counts, those added later too; past the cap the client
 * gets `too_many_streams` instead of events.
 */
export function useStreamSlots(): Plugin<GraphQLContext> {
  return {
    onSubscribe({ context, setResultAndStopExecution }) {
      try {
        context.req.holdStream(context.reply.raw);
      } catch (error) {
        if (!isAppError(error)) throw error;
        setResultAndStopExecution({
          errors: [createGraphQLError(error.message, { extensions: { code: error.code } })],
        });
      }
    },
  };
}
