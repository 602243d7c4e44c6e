import { type DocumentNode, Kind, type OperationDefinitionNode } from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * An `operationName` that is neither a string nor null breaks the request's shape, and gets the
 * answer Yoga gives `variables` of the wrong type: 400 BAD_REQUEST naming the parameter. Yoga went
 * on to "Could not determine what operation to execute." (OPERATION_RESOLUTION_FAILURE).
 */
export function useOperationNameType(): Plugin {
  return {
    onParams({ params }) {
      const name = params.operationName as unknown;
      if (name === undefined || name === null || typeof name === 'string') return;
      const given = Array.isArray(name) ? 'array' : typeof name;
      throw createGraphQLError(
        `Expected "operationName" param to be empty or a string, but given ${given}.`,
        { extensions: { http: { status: 400 }, code: 'BAD_REQUEST' } },
      );
    },
  };
}

/**
 * A document whose operation `operationName` does not pick out gets Yoga's 400
 * OPERATION_RESOLUTION_FAILURE, with a message saying what to send instead of Yoga's "Could not
 * determine what operation to execute.". Runs before Yoga's own check, which it pre-empts.
 */
export function useOperationResolution(): Plugin {
  return {
    onParse:
      () =>
      ({ result, context }) => {
        const { request, params } = context as { request?: unknown; params?: { operationName?: unknown } };
        if (request === undefined || !isDocument(result)) return;
        const name = typeof params?.operationName === 'string' ? params.operationName : undefined;
        const message = unresolvedOperation(result, name);
        if (message === undefined) return;
        throw createGraphQLError(message, {
          extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400, spec: true } },
        });
      },
  };
}

/** Why `operationName` picks no operation of the document (as graphql-js's getOperationAST decides), if it does not. */
function unresolvedOperation(document: DocumentNode, operationName: string | undefined): string | undefined {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const names = operations.map((operation) => operation.name?.value ?? '(anonymous)').join(', ');
  if (operationName === undefined) {
    if (operations.length === 1) return undefined;
    if (operations.length === 0) return 'The document holds no operation, only fragments.';
    return `The document holds several operations (${names}): name the one to run in operationName.`;
  }
  if (operations.some((operation) => operation.name?.value === operationName)) return undefined;
  if (operations.length === 0) return 'The document holds no operation, only fragments.';
  return `The document holds no operation named ${JSON.stringify(operationName)}: it holds ${names}.`;
}

function isDocument(result: unknown): result is DocumentNode {
  return typeof result === 'object' && result !== null && (result as DocumentNode).kind === Kind.DOCUMENT;
}
