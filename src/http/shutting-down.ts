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
 * Add it after the X-Request-Id hook and before the guard: a refused request costs no quota.
 * Health probes still answer (alive, and not ready: see health.ts). Returns whether it is closing.
 */
export function refuseWhileShuttingDown(app: FastifyInstance): () => boolean {
  let shuttingDown = false;
  app.addHook('preClose', (done) => {
    shuttingDown = true;
    done();
  });
  // Callback style: on every request, an async hook would cost a promise for nothing.
  app.addHook('onRequest', (request, reply, done) => {
    if (!shuttingDown || request.routeOptions.config.probe === true) return done();
    sendError(reply, new ShuttingDownError());
  });
  return () => shuttingDown;
}
