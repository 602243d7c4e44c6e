import { createGraphQLError, type Plugin } from 'graphql-yoga';

/**
 * GET's parameters (GraphQL over HTTP: `query`, `operationName`, and `variables` and `extensions` as
 * JSON), read as Yoga reads them but for one thing: `variables` or `extensions` that are not JSON
 * are the client's mistake, answered with 400 BAD_REQUEST as a POST body that is not JSON is. Yoga
 * let the JSON parser's error through, which became a logged `internal_error`.
 */
export function useGetParams(): Plugin {
  return {
    onRequestParse({ request, setRequestParser }) {
      if (request.method !== 'GET') return;
      setRequestParser((request) => {
        const at = request.url.indexOf('?');
        const params = new URLSearchParams(at === -1 ? '' : request.url.slice(at + 1));
        return {
          operationName: params.get('operationName') || undefined,
          query: params.get('query') || undefined,
          variables: jsonParam(params, 'variables'),
          extensions: jsonParam(params, 'extensions'),
        };
      });
    },
  };
}

function jsonParam(params: URLSearchParams, name: string): Record<string, unknown> | undefined {
  const text = params.get(name);
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    // As Yoga's own parser of POST bodies: the status, the code, and the cause (which the error
    // translation keeps from clients).
    throw createGraphQLError(`The "${name}" parameter is not valid JSON.`, {
      extensions: {
        http: { status: 400 },
        code: 'BAD_REQUEST',
        originalError: { name: (error as Error).name, message: (error as Error).message },
      },
    });
  }
}
