import {
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  getOperationAST,
  Kind,
  type OperationDefinitionNode,
  type ValidationContext,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { isAppError } from '../../shared/errors.ts';
import { isPromise } from '../../shared/maybe-promise.ts';
import type { GraphQLContext } from './builder.ts';
import { countRootFields } from './root-fields.ts';

/**
 * A GraphQL write counts once per mutation field against the key's limits, as a REST write would:
 * the guard counts the HTTP request once, and this adds one for every further field. Aliases,
 * fragments and inline fragments are all followed, and a field skipped by a directive still
 * counts (the count is made before anything runs); fields that merge (the same alias) run once and
 * count once. Batching is off, so one request holds one
 * operation. A document may hold at most MAX_MUTATION_FIELDS of them.
 */
export const MAX_MUTATION_FIELDS = 10;

export function useMutationFieldLimits(): Plugin<GraphQLContext> {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule((context: ValidationContext): ASTVisitor => ({
        OperationDefinition(node) {
          if (node.operation !== 'mutation') return;
          const count = countRootFields(node.selectionSet, (name) => context.getFragment(name));
          if (count <= MAX_MUTATION_FIELDS) return;
          context.reportError(
            createGraphQLError(
              `The mutation has ${count} fields; one request may hold at most ${MAX_MUTATION_FIELDS}.`,
              { nodes: node },
            ),
          );
        },
      }));
    },
    async onExecute({ args, setResultAndStopExecution }) {
      const extra = mutationFields(args.document, args.operationName ?? undefined) - 1;
      if (extra <= 0) return;
      try {
        const charged = (args.contextValue as GraphQLContext).reply.consumeRateLimit(extra);
        if (isPromise(charged)) await charged;
      } catch (error) {
        if (!isAppError(error)) throw error;
        setResultAndStopExecution({
          errors: [
            createGraphQLError(error.message, {
              extensions: { code: error.code, http: { status: error.status, headers: error.headers } },
            }),
          ],
        });
      }
    },
  };
}

/** How many mutation fields the operation to run holds (0 for a query or subscription). */
export function mutationFields(document: DocumentNode, operationName: string | undefined): number {
  const operation: OperationDefinitionNode | null | undefined = getOperationAST(document, operationName);
  if (operation?.operation !== 'mutation') return 0;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return countRootFields(operation.selectionSet, (name) => fragments.get(name));
}
