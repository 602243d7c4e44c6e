import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * Answers sent before the request's body has arrived: a 413, a 401 or 429 from the guard, a 404.
 * Left to Node and Fastify, a client still sending often never reads that answer: Fastify asks for
 * `Connection: close` after a body error, Node then closes the socket as soon as the answer is
 * written, and a socket closed with unread bytes (or receiving more) answers with a TCP reset,
 * which makes the client fail with EPIPE or ECONNRESET, usually before it has read the response.
 * Without `Connection: close` (a 401, a 404) Node keeps the connection and reads the body to its
 * end, however large.
 *
 * Here, such an answer keeps the connection when the body's declared length is within the
 * discard limit (Node reads and drops the rest, and the client may send its next request on the
 * connection). Otherwise the answer says `Connection: close` and the close lingers, as nginx and
 * Apache close: the answer, then our half of the connection (FIN), which tells the client to stop
 * sending; then the body is read and dropped until it ends or until `discardBytes` more have
 * arrived, and the socket is closed once the body has ended, the client has closed, or
 * `lingerMs` have passed. RFC 9112 §9.6 describes the reset this avoids.
 */

export type UnreadBodyLimits = Readonly<{
  /** Bytes of a body read and dropped after answering without it. */
  discardBytes: number;
  /** How long a connection closing after such an answer may stay open. */
  lingerMs: number;
}>;

export const UNREAD_BODY_LIMITS: UnreadBodyLimits = Object.freeze({
  discardBytes: 1024 * 1024,
  lingerMs: 5000,
});

export function closeGentlyAfterUnreadBodies(
  app: FastifyInstance,
  limits: UnreadBodyLimits = UNREAD_BODY_LIMITS,
): void {
  // Callback style: on every response, an async hook would cost a promise for nothing.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!request.raw.complete && declaresBody(request.raw)) answerBeforeBody(request.raw, reply, limits);
    done(null, payload);
  });
}

/**
 * Whether the request has a body at all. A request without one is not `complete` yet while a
 * synchronous handler answers it (Node marks it complete after the handler returns).
 */
function declaresBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Requests whose connection closes after their answer, whatever their body's length. */
const closing = new WeakSet<IncomingMessage>();

/** Closes the connection after `request`'s answer, lingering as after any unread body. */
export function closeAfterAnswer(request: IncomingMessage): void {
  closing.add(request);
}

/** Per connection, the last request answered before its body had arrived, and that answer. */
const answeredEarly = new WeakMap<Socket, { request: IncomingMessage; response: ServerResponse }>();

/**
 * The answer of a request on this connection answered before its body had arrived, while that body
 * has not arrived yet: the request is answered, what the connection still waits for is the rest of it.
 */
export function answerBeforeItsBody(socket: Socket): ServerResponse | undefined {
  const early = answeredEarly.get(socket);
  return early?.request.complete === false ? early.response : undefined;
}

function answerBeforeBody(request: IncomingMessage, reply: FastifyReply, limits: UnreadBodyLimits): void {
  answeredEarly.set(request.socket, { request, response: reply.raw });
  const length = Number(request.headers['content-length']);
  if (
    request.headers['transfer-encoding'] === undefined &&
    length <= limits.discardBytes &&
    !closing.has(request)
  ) {
    // Fastify asks for a close after a body error; without one, HTTP/1.1 keeps the connection.
    if (reply.hasHeader('connection')) reply.removeHeader('connection');
    return;
  }
  reply.header('connection', 'close');
  const socket = request.socket;
  // Node ends a connection whose answer said `Connection: close` with socket.destroySoon() (its
  // resOnFinish), which destroys the socket once the answer is written: this one lingers instead.
  socket.destroySoon = () => lingeringClose(socket, request, limits);
}

function lingeringClose(socket: Socket, request: IncomingMessage, limits: UnreadBodyLimits): void {
  socket.end();
  const timer = setTimeout(() => socket.destroy(), limits.lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  let discarded = 0;
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    // Read no further. Closing now would reset a client whose kernel is still sending what it
    // queued before our answer arrived; TCP flow control holds it back until the close instead.
    if (discarded > limits.discardBytes) request.pause();
  });
  finished(request, () => socket.destroy());
  request.resume();
}
