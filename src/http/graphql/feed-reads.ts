import type { ASTVisitor, ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { FEED_SCAN_LIMIT } from '../../application/queries/event-feed.ts';
import { countRootFields } from './root-fields.ts';

/**
 * A page of the audit feed filtered by type may read up to FEED_SCAN_LIMIT events of the store,
 * REST's bound for one request. In GraphQL each aliased `auditEvents` would read as much again for
 * one request of the key's budget: an operation may read the feed once.
 */
export function useFeedReadLimit(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule((context: ValidationContext): ASTVisitor => ({
        OperationDefinition(node) {
          if (node.operation !== 'query') return;
          const reads = countRootFields(
            node.selectionSet,
            (name) => context.getFragment(name),
            'auditEvents',
          );
          if (reads <= 1) return;
          context.reportError(
            createGraphQLError(
              `The query reads auditEvents ${reads} times; one request may read it once (a page reads up to ${FEED_SCAN_LIMIT} events of the store).`,
              { nodes: node },
            ),
          );
        },
      }));
    },
  };
}
