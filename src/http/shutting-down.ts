import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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

/**
 * How long a closing server waits for the responses in flight: a client that stops reading its
 * stream, or never sends the rest of a body, must not hold the shutdown past its own deadline
 * (`petstore start` gives up after 15 s, with status 1). A request still unfinished then is cut off.
 */
export const DRAIN_MS = 5_000;

/**
 * Lets `close()` finish once the responses in flight have: Node's `server.close()` closes the
 * connections idle at that moment only. A connection that has sent no request yet (a browser's
 * preconnect, or a client's spare) counts as busy until the headers timeout closes it (see
 * closeSilentConnections), and one whose
 * response was still streaming (an event stream, which a preClose hook is ending) goes idle after
 * it and then waits out the keep-alive timeout: a shutdown outlived its deadline for either. So,
 * as close starts, a connection with no response in flight is destroyed, one with a response in
 * flight is closed once that response has gone out, and whatever is left after `drainMs` is cut.
 * That response says `Connection: close` when its headers are still to be written: told
 * `keep-alive`, a client sends its next request on the connection as it closes, and gets a reset
 * for a request it cannot tell was not run.
 */
export function closeConnectionsOnClose(app: FastifyInstance, drainMs = DRAIN_MS): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  let deadline: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    for (const socket of open) {
      const response = inFlight(socket);
      if (response === undefined) socket.destroy();
      else {
        if (!response.headersSent) response.shouldKeepAlive = false;
        response.once('close', () => socket.destroySoon());
      }
    }
    deadline = setTimeout(() => {
      if (open.size > 0) app.log.warn({ connections: open.size }, 'closing: cut the connections still busy');
      for (const socket of open) socket.destroy();
    }, drainMs);
    deadline.unref();
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    clearTimeout(deadline);
    done();
  });
}

/** The response this connection is writing (Node's own record of it), if any. */
function inFlight(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}
