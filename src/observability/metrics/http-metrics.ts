import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from './registry.ts';

/**
 * Every response, by route pattern (`/v1/pets/:petId`, never the raw URL: one series per route, not
 * per pet), method and status. Requests no route matched count under `(unmatched)`.
 */
export function httpMetrics(metrics: Metrics): FastifyPluginAsync {
  return fp(
    async (app) => {
      app.addHook('onResponse', (request, reply, done) => {
        metrics.httpRequestDuration.observe(
          {
            route: request.routeOptions.url ?? '(unmatched)',
            method: request.method,
            status: String(reply.statusCode),
          },
          reply.elapsedTime / 1000,
        );
        done();
      });
    },
    { name: 'http-metrics' },
  );
}
