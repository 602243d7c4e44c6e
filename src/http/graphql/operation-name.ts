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
