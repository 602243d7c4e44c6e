import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * One `info` line per request (ACCESS_LOG=true): request id, method, route pattern (never the raw
 * URL, whose query string may carry anything), status, duration in ms, and the key's id (never its
 * secret). Off by default: see README, section Operations, for what a line costs.
 */
export const accessLog: FastifyPluginAsync = fp(
  async (app) => {
    const log = (request: FastifyRequest, reply: FastifyReply) =>
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 100) / 100,
          keyId: request.apiKey?.keyId ?? null,
        },
        'request',
      );
    app.addHook('onResponse', (request, reply, done) => {
      log(request, reply);
      done();
    });
    app.unroutedAnswers.push(log);
  },
  { name: 'access-log' },
);
