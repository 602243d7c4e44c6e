import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, errorBody, NotFoundError } from '../../shared/errors.ts';

export type MetricsListener = { readonly url: string; close(): Promise<void> };

/** What a scrape gets: a registry, or under `--workers` the primary's aggregate of the workers'. */
export type MetricsSource = { readonly contentType: string; metrics(): Promise<string> };

/**
 * `GET /metrics` on a listener of its own (METRICS_PORT, METRICS_HOST): apart from the public API,
 * its API keys and rate limits, for a scraper on the operators' network. HEAD too; another method
 * is a 405 and another path a 404, with the API's Error body, and a failed collection a 500 whose
 * message says no more than the API's does (the error goes to the log).
 */
export async function startMetricsListener(
  registry: MetricsSource,
  options: {
    readonly port: number;
    readonly host: string;
    readonly log?: { error(obj: object, msg: string): void };
  },
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0];
    if (path !== '/metrics') {
      refuse(response, new NotFoundError(`No route ${request.method} ${path} here: only GET /metrics.`));
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      const message = `Method ${request.method} is not allowed on /metrics; use GET or HEAD.`;
      refuse(response, new AppError('method_not_allowed', 405, message, { Allow: 'GET, HEAD' }));
      return;
    }
    registry.metrics().then(
      (body) =>
        response
          .writeHead(200, { 'content-type': registry.contentType })
          .end(request.method === 'HEAD' ? undefined : body),
      (error: unknown) => {
        options.log?.error({ err: error }, 'metrics: collecting failed');
        const message = 'The server failed to collect its metrics. It has been logged.';
        refuse(response, new AppError('internal_error', 500, message));
      },
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

/** An AppError as the API answers it: its status, its headers, and the Error body. */
function refuse(response: ServerResponse, error: AppError): void {
  response
    .writeHead(error.status, { 'content-type': 'application/json; charset=utf-8', ...error.headers })
    .end(JSON.stringify(errorBody(error)));
}
