import type { FastifyInstance } from 'fastify';
import { renderGraphiQL } from 'graphql-yoga';
import { GRAPHQL_PATH } from './yoga.ts';

export const GRAPHIQL_PATH = '/graphiql';

/**
 * The GraphiQL page, public because a browser opening a page sends no bearer key. The page itself
 * holds no data: every query it sends goes to /graphql with the key typed into its headers tab.
 */
export function graphiqlRoute(app: FastifyInstance): void {
  const html = renderGraphiQL({
    endpoint: GRAPHQL_PATH,
    title: 'Pet store GraphQL',
    headers: JSON.stringify({ Authorization: 'Bearer YOUR_API_KEY' }, null, 2),
    defaultQuery:
      '{\n  pets(first: 5) {\n    edges { node { id name categoryId status } }\n    pageInfo { hasNextPage endCursor }\n  }\n}\n',
  });
  app.get(GRAPHIQL_PATH, { config: { public: true } }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(html),
  );
}
