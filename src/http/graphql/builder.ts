import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import type { FastifyRequest } from 'fastify';
import type { Application, RequestContext } from '../../application/index.ts';

/** What every resolver receives: the one application layer and who is asking. */
export type GraphQLContext = {
  readonly application: Application;
  readonly requestContext: RequestContext;
  /** The Fastify request, for its id and its logger. */
  readonly req: FastifyRequest;
  /** Aborted when the server starts closing: long-lived streams (subscriptions) end then. */
  readonly closing: AbortSignal;
};

/**
 * The builder and its context, nothing else: each GraphQL type lives in its own module under
 * `types/`, and `index.ts` assembles them.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: { SafeInt: { Input: number; Output: number } };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
}>({
  plugins: [ErrorsPlugin, RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    // Pets are fetched by their own id; no global object identification (Node) is offered.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  errors: { directResult: true },
});
