import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { packageVersion, scriptJson, serveAssets, servePage } from './assets.ts';

export const API_REFERENCE_PATH = '/docs';

/**
 * The OpenAPI document as an interactive reference (Swagger UI, from the swagger-ui-dist package,
 * served by this server: nothing from a CDN). "Authorize" takes an API key; "Try it out" sends real
 * requests to /v1, through the guard like any other client's. The key lives in the page only.
 */
export function apiReferencePage(app: FastifyInstance): void {
  const base = `${API_REFERENCE_PATH}/assets/${packageVersion('swagger-ui-dist', 0)}`;
  const file = (name: string) => () => readFile(new URL(name, import.meta.resolve('swagger-ui-dist')));
  serveAssets(app, {
    [`${base}/swagger-ui-bundle.js`]: {
      type: 'text/javascript; charset=utf-8',
      body: file('swagger-ui-bundle.js'),
    },
    [`${base}/swagger-ui.css`]: { type: 'text/css; charset=utf-8', body: file('swagger-ui.css') },
  });
  const options = {
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    tryItOutEnabled: true,
    persistAuthorization: false,
    // Swagger UI would otherwise send the document to validator.swagger.io.
    validatorUrl: null,
  };
  const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>Pet store API reference</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${base}/swagger-ui.css" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="${base}/swagger-ui-bundle.js"></script>
    <script>
      window.ui = SwaggerUIBundle(${scriptJson(options)});
    </script>
  </body>
</html>
`;
  servePage(app, API_REFERENCE_PATH, html);
}
