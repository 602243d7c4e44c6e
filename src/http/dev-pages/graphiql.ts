import type { FastifyInstance } from 'fastify';
import { packageVersion, scriptJson, serveAssets, servePage } from './assets.ts';

export const GRAPHIQL_PATH = '/graphiql';

/**
 * GraphiQL, from npm (@graphql-yoga/render-graphiql bundles it, Monaco's workers included), served
 * by this server: nothing comes from a CDN, so it works offline. Public because a browser opening a
 * page sends no bearer key; every query it sends goes to /graphql with the key typed into its
 * Headers tab, which GraphiQL is told not to keep in the browser's storage.
 */
export function graphiqlPage(app: FastifyInstance): void {
  const base = `${GRAPHIQL_PATH}/assets/${packageVersion('@graphql-yoga/render-graphiql', 1)}`;
  const bundle = () => import('@graphql-yoga/render-graphiql/graphiql');
  const script = (pick: (b: Awaited<ReturnType<typeof bundle>>) => string) => ({
    type: 'text/javascript; charset=utf-8',
    body: async () => pick(await bundle()),
  });
  serveAssets(app, {
    [`${base}/graphiql.js`]: script((b) => b.js),
    [`${base}/graphiql.css`]: { type: 'text/css; charset=utf-8', body: async () => (await bundle()).css },
    [`${base}/editor.worker.js`]: script((b) => b.editorWorkerService),
    [`${base}/json.worker.js`]: script((b) => b.jsonWorker),
    [`${base}/graphql.worker.js`]: script((b) => b.graphqlWorker),
  });
  const options = {
    endpoint: '/graphql',
    title: 'Pet store GraphQL',
    headers: JSON.stringify({ Authorization: 'Bearer YOUR_API_KEY' }, null, 2),
    shouldPersistHeaders: false,
    defaultQuery:
      '{\n  pets(first: 5) {\n    edges { node { id name categoryId status } }\n    pageInfo { hasNextPage endCursor }\n  }\n}\n',
  };
  const workers = {
    editorWorkerService: `${base}/editor.worker.js`,
    json: `${base}/json.worker.js`,
    graphql: `${base}/graphql.worker.js`,
  };
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>${options.title}</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${base}/graphiql.css" />
  </head>
  <body id="body" class="no-focus-outline">
    <div id="root"></div>
    <script>
      const workers = ${scriptJson(workers)};
      self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] };
    </script>
    <script src="${base}/graphiql.js"></script>
    <script>
      YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(options)});
    </script>
  </body>
</html>
`;
  servePage(app, GRAPHIQL_PATH, html);
}
