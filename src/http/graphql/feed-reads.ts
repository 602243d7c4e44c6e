import type { ASTVisitor, FieldNode, ValidationContext } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { AS_OF_SCAN_LIMIT } from '../../application/ports/read-models.ts';
import { FEED_SCAN_LIMIT } from '../../application/queries/event-feed.ts';
import { countRootFields } from './root-fields.ts';

/**
 * A page of the audit feed filtered by type may read up to FEED_SCAN_LIMIT events of the store,
 * REST's bound for one request, and a page of the catalogue as of the past up to AS_OF_SCAN_LIMIT
 * versions of pets, however few match. In GraphQL each aliased `auditEvents`, or `pets` with
 * `asOf`, would read as much again for one request of the key's budget: an operation may read the
 * feed once, and the past catalogue once (fifteen aliases as of 1970 read 150,000 rows, about 35 ms
 * of the event loop, for one request).
 */
export function useFeedReadLimit(): Plugin {
  return {
    onValidate({ addValidationRule }) {
      addValidationRule((context: ValidationContext): ASTVisitor => ({
        OperationDefinition(node) {
          if (node.operation !== 'query') return;
          for (const bounded of READ_ONCE) {
            const reads = countRootFields(
              node.selectionSet,
              (name) => context.getFragment(name),
              bounded.field,
            );
            if (reads > 1)
              context.reportError(
                createGraphQLError(
                  `The query reads ${bounded.reads} ${reads} times; one request may read ${bounded.once} once (a page reads up to ${bounded.page}).`,
                  { nodes: node },
                ),
              );
          }
        },
      }));
    },
  };
}

/** The root fields one query may read once, what they read, and a page's bound. */
const READ_ONCE = [
  { field: 'auditEvents', reads: 'auditEvents', once: 'it', page: `${FEED_SCAN_LIMIT} events of the store` },
  {
    field: readsPastCatalogue,
    reads: 'pets with asOf',
    once: 'the past catalogue',
    page: `${AS_OF_SCAN_LIMIT} versions of pets`,
  },
] as const;

/** `pets(asOf: …)`: a page of the temporal index, given in the document or by a variable. */
function readsPastCatalogue(field: FieldNode): boolean {
  return (
    field.name.value === 'pets' &&
    field.arguments?.some((argument) => argument.name.value === 'asOf') === true
  );
}
