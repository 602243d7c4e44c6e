import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Metrics } from './registry.ts';

/**
 * Every response, by route pattern (`/v1/pets/:petId`, never the raw URL: one series per route, not
 * per pet), method and status. Requests no route matched count under `(unmatched)`. Timed up to
 * onSend, when the response is handed to the socket: a server-sent event stream counts once, when
 * it starts, not for as long as a subscriber listens.
 */
export function httpMetrics(metrics: Metrics): FastifyPluginAsync {
  return fp(
    async (app) => {
      const observe = (request: FastifyRequest, reply: FastifyReply) =>
        metrics.httpRequestDuration.observe(
          {
            route: request.routeOptions.url ?? '(unmatched)',
            method: request.method,
            status: String(reply.statusCode),
          },
          reply.elapsedTime / 1000,
        );
      app.addHook('onSend', (request, reply, payload, done) => {
        observe(request, reply);
        done(null, payload);
      });
      // A request the router refused (a malformed path) runs no hook: see framework-errors.ts.
      app.unroutedAnswers.push(observe);
    },
    { name: 'http-metrics' },
  );
}
