import SchemaBuilder from '@pothos/core';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import ScopeAuthPlugin, { AuthScopeFailureType, type AuthFailure } from '@pothos/plugin-scope-auth';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Application, RequestContext } from '../../application/index.ts';
import type { Scope } from '../../domain/scopes.ts';
import { InsufficientScopeError } from '../../shared/auth-errors.ts';

/** What every resolver receives: the one application layer and who is asking. */
export type GraphQLContext = {
  readonly application: Application;
  readonly requestContext: RequestContext;
  /** The Fastify request, for its id, its key and its logger. */
  readonly req: FastifyRequest;
  /** The Fastify reply, for headers an error adds (WWW-Authenticate) and extra rate-limit points. */
  readonly reply: FastifyReply;
  /** Aborted when the server starts closing: long-lived streams (subscriptions) end then. */
  readonly closing: AbortSignal;
};

/**
 * The builder and its context, nothing else: each GraphQL type lives in its own module under
 * `types/`, and `index.ts` assembles them. A field that needs a key scope says so with
 * `authScopes: { scope: '…' }`: the same scopes, checked by the same rule, as REST's routes.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  Scalars: {
    SafeInt: { Input: number; Output: number };
    JSONObject: { Input: never; Output: Readonly<Record<string, unknown>> };
  };
  AuthScopes: { scope: Scope; allOf: readonly Scope[] };
  DefaultFieldNullability: false;
  DefaultInputFieldRequiredness: false;
}>({
  plugins: [ScopeAuthPlugin, ErrorsPlugin, RelayPlugin],
  // Non-null unless said otherwise. Every Query and Mutation field a scope guards says otherwise:
  // one the key may not use is null with insufficient_scope, and must leave the rest of the answer
  // (and the results of mutations already run) in place, not null the whole of `data`.
  defaultFieldNullability: false,
  relay: {
    cursorType: 'String',
    clientMutationId: 'omit',
    // Pets are fetched by their own id; no global object identification (Node) is offered.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
  },
  errors: { directResult: true },
  scopeAuth: {
    authorizeOnSubscribe: true,
    authScopes: (context) => ({
      scope: (needed: Scope) => context.req.hasScope(needed),
      allOf: (needed: readonly Scope[]) => needed.every((scope) => context.req.hasScope(scope)),
    }),
    unauthorizedError: (_parent, context, _info, result) =>
      new InsufficientScopeError(missingScope(result.failure, context)),
  },
});

/** The scope the key lacks: the one a field named, or the first missing of those it named together. */
function missingScope(failure: AuthFailure, context: GraphQLContext): string {
  if (failure.kind === AuthScopeFailureType.AuthScope) {
    const needed = failure.parameter as Scope | readonly Scope[];
    if (typeof needed === 'string') return needed;
    return needed.find((scope) => !context.req.hasScope(scope)) ?? needed.join(' ');
  }
  if ('failures' in failure && failure.failures[0] !== undefined)
    return missingScope(failure.failures[0], context);
  return 'unknown';
}
