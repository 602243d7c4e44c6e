import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { sendError } from './error-handler.ts';

export class ShuttingDownError extends AppError {
  constructor() {
    super('shutting_down', 503, 'The server is shutting down; retry the request.');
  }
}

/**
 * From the moment `close()` starts, answers every request with 503 and the spec's Error body.
 * Fastify's own `return503OnClosing` answers before any hook, with a body of its own and no
 * X-Request-Id; a request on a keep-alive connection can still arrive while the server drains.
 * The answer comes after the guard (a preParsing hook runs after every onRequest hook, the guard's
 * included), so that it carries the rate-limit headers like every other answer: the request counts
 * against its key, and a request the guard refuses gets the guard's 401 or 429.
 * Health probes still answer (alive, and not ready: see health.ts). Returns whether it is closing.
 */
export function refuseWhileShuttingDown(app: FastifyInstance): () => boolean {
  let shuttingDown = false;
  app.addHook('preClose', (done) => {
    shuttingDown = true;
    done();
  });
  // Callback style: on every request, an async hook would cost a promise for nothing.
  app.addHook('preParsing', (request, reply, _payload, done) => {
    if (!shuttingDown || request.routeOptions.config.probe === true) return done();
    sendError(reply, new ShuttingDownError());
  });
  return () => shuttingDown;
}
