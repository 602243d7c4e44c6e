import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { allowOnly } from '../four-oh-four.ts';

/** The pages and their files are public: a browser opening a page sends no key. */
const PUBLIC = { public: true } as const;

export type Asset = { readonly type: string; readonly body: () => Promise<string | Buffer> };

/** A package's version, from its package.json; its entry (`specifier`) lies `depth` folders below it. */
export function packageVersion(specifier: string, depth: number): string {
  let url = new URL('.', import.meta.resolve(specifier));
  for (let i = 0; i < depth; i++) url = new URL('..', url);
  return (JSON.parse(readFileSync(new URL('package.json', url), 'utf8')) as { version: string }).version;
}

/**
 * Serves files of an npm package at paths that carry its version, so a browser may keep them for a
 * year (`immutable`): an upgrade changes the path. Each file is read once, on the first request
 * whose read succeeds, and kept: the pages are off in production, and a server that never shows
 * them never loads them.
 * Public like the pages that use them (a browser sends no key), so under the per-address limit.
 */
export function serveAssets(app: FastifyInstance, assets: Readonly<Record<string, Asset>>): void {
  for (const [url, asset] of Object.entries(assets)) {
    let body: Promise<string | Buffer> | undefined;
    app.get(url, { config: PUBLIC }, async (_request, reply) => {
      // A read that failed (too many open files, say) is tried again by the next request.
      body ??= asset.body().catch((error: unknown) => {
        body = undefined;
        throw error;
      });
      return reply
        .type(asset.type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .send(await body);
    });
    allowOnly(app, url, ['GET', 'HEAD'], PUBLIC);
  }
}

/** A page at `url`: public, GET and HEAD (another method is a 405 with Allow, as on every route). */
export function servePage(app: FastifyInstance, url: string, html: string): void {
  app.get(url, { config: PUBLIC }, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(html),
  );
  allowOnly(app, url, ['GET', 'HEAD'], PUBLIC);
}

/** Makes text safe inside an inline <script>: no `</script>` can end it early. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replaceAll('<', '\\u003c');
}
