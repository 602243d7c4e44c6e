import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * The service keeps no persisted queries. A request that sends only a hash (automatic persisted
 * queries: Apollo Client's PersistedQueryLink, urql's persistedExchange) is answered with the
 * message and code by which those clients recognise that, and send the query text from then on.
 * Yoga answered "Must provide query string." (BAD_REQUEST), which they take for a failed query:
 * every query of such a client failed. The status follows Accept as for a missing query.
 */
export function usePersistedQueryRefusal(): Plugin {
  return {
    onParams({ params }) {
      if (params.query != null || !isObject(params.extensions?.persistedQuery)) return;
      throw createGraphQLError('PersistedQueryNotSupported', {
        extensions: { http: { spec: true, status: 400 }, code: 'PERSISTED_QUERY_NOT_SUPPORTED' },
      });
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
