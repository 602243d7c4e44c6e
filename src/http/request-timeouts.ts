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
