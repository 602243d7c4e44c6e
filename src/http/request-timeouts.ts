import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** REQUEST_TIMEOUT_SECONDS's default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * The Node server's timeouts for a request on its way in, from REQUEST_TIMEOUT_SECONDS. Fastify
 * sets Node's `requestTimeout` to 0 unless told otherwise, which leaves only the headers timed
 * (60 s): a request whose body stops short of its Content-Length, or a chunked body that never
 * ends, held its connection and its request open for as long as the client kept the socket,
 * without the 408 clientErrorHandler (client-errors.ts) answers. Here the whole request is timed, its headers within
 * the same bound (at most Node's 60 s), and Node looks for late requests every quarter of it (at
 * most every 30 s, Node's default), so that one is answered within 1.25 times the timeout.
 */
export function requestTimeouts(requestTimeoutMs: number): {
  requestTimeout: number;
  headersTimeout: number;
  connectionsCheckingInterval: number;
} {
  return {
    requestTimeout: requestTimeoutMs,
    headersTimeout: Math.min(60_000, requestTimeoutMs),
    connectionsCheckingInterval: Math.min(30_000, Math.ceil(requestTimeoutMs / 4)),
  };
}

/**
 * Closes a connection that has sent no byte within `headersTimeoutMs` of opening. Node times a
 * request's headers from their first byte only: a connection that sends nothing at all (a
 * preconnect never used, or a client opening many and holding them) stayed open for as long as
 * the client kept it, one file descriptor each, without a request to limit or log, so that a
 * single client could take every descriptor the process may open. One timer per connection, not
 * per request; a connection that has begun a request is left to the timeouts above.
 */
export function closeSilentConnections(server: Server, headersTimeoutMs: number): void {
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, headersTimeoutMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  });
}
