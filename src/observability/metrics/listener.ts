import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type MetricsListener = { readonly url: string; close(): Promise<void> };

/** What a scrape gets: a registry, or under `--workers` the primary's aggregate of the workers'. */
export type MetricsSource = { readonly contentType: string; metrics(): Promise<string> };

/**
 * `GET /metrics` on a listener of its own (METRICS_PORT, METRICS_HOST): apart from the public API,
 * its API keys and rate limits, for a scraper on the operators' network. Anything else is a 404.
 */
export async function startMetricsListener(
  registry: MetricsSource,
  options: { readonly port: number; readonly host: string },
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Only GET /metrics here.\n');
      return;
    }
    registry.metrics().then(
      (body) => response.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (error: unknown) =>
        response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${String(error)}\n`),
    );
  });
  server.listen(options.port, options.host);
  await Promise.race([
    once(server, 'listening'),
    once(server, 'error').then(([error]) => Promise.reject(error)),
  ]);
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    // A scrape cut short is retried at the next interval; a connection that sent no request (a TCP
    // probe, a scraper's spare) or half of one would otherwise hold close() until Node's 60 s
    // headers timeout, past the shutdown's deadline.
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
