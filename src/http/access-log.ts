import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One `info` line per request (ACCESS_LOG=true): request id, method, route pattern (never the raw
 * URL, whose query string may carry anything), status, duration in ms, and the key's id (never its
 * secret); `closedEarly` when the response closed before it was finished (a stream its client left:
 * `ms` is then how long it was open; `status` null when no answer had begun). Off by default: see README, section Operations, for what a line costs.
 */
export const accessLog: FastifyPluginAsync = fp(
  async (app) => {
    const logged = new WeakSet<FastifyRequest>();
    const log = (request: FastifyRequest, reply: FastifyReply, closedEarly = false) => {
      if (logged.has(request)) return;
      logged.add(request);
      const response = reply.raw;
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          // A client that left before the answer began never had one.
          status: response.headersSent ? reply.statusCode : null,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          keyId: request.apiKey?.keyId ?? null,
          ...(closedEarly && { closedEarly }),
        },
        'request',
      );
    };
    app.addHook('onResponse', (request, reply, done) => {
      log(request, reply, false);
      done();
    });
    app.unroutedAnswers.push((request, reply) => log(request, reply, false));
    // An event stream its client left, a client that gave up waiting: no onResponse for those.
    app.onClosedEarly((request, reply) => log(request, reply, true));
  },
  { name: 'access-log' },
);
