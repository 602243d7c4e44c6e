import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { AppError, BadRequestError } from '../shared/errors.ts';
import { errorBody } from './error-handler.ts';
import { UNREAD_BODY_LIMITS, type UnreadBodyLimits } from './unread-body.ts';

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses before any route or hook
 * runs (headers over Node's 16 KiB, bytes that are not HTTP/1.1, a request that takes too long to
 * arrive). They get the spec's Error body, a fresh X-Request-Id (theirs cannot be read) under
 * which the refusal is logged at debug level, and `Connection: close`. They carry no rate-limit
 * headers and are not counted: the key is unknown, and so is the client when a proxy is in front.
 *
 * The parser keeps reporting an error for every later chunk of the same connection, so only the
 * first is answered. As after an answer sent before the body (see unread-body.ts), the close
 * lingers: a client still sending would otherwise be reset before it reads the answer.
 */

type ParserError = Error & { code?: string; reason?: string };

export function clientErrorHandler(limits: UnreadBodyLimits = UNREAD_BODY_LIMITS) {
  const answered = new WeakMap<Socket, number>();

  return function handleClientError(this: FastifyInstance, error: ParserError, socket: Socket): void {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    const answeredAt = answered.get(socket);
    if (answeredAt !== undefined) {
      if (socket.bytesRead - answeredAt > limits.discardBytes) socket.pause();
      return;
    }
    if (!socket.writable || responseInFlight(socket)) {
      socket.destroy();
      return;
    }
    const refusal = translate(error);
    const requestId = randomUUID();
    this.log.debug({ requestId, err: error, status: refusal.status }, 'request refused by the HTTP parser');
    answered.set(socket, socket.bytesRead);
    socket.end(rawResponse(refusal, requestId));
    const timer = setTimeout(() => socket.destroy(), limits.lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
  };
}

function translate(error: ParserError): AppError {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return new AppError(
        'headers_too_large',
        431,
        'The request headers are larger than this server accepts (16 KiB in all).',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', 413, 'The chunk extensions of the body are too large.');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout', 408, 'The request did not arrive in time.');
    default:
      return new BadRequestError('bad_request', `The request is not valid HTTP/1.1: ${reasonOf(error)}.`);
  }
}

/** llhttp's reason ("Invalid header value char"), which names the fault and echoes no input. */
function reasonOf(error: ParserError): string {
  return (error.reason ?? 'it could not be parsed').replace(/\.$/, '');
}

/**
 * Whether a response of an earlier request on this connection has started (Node's own check):
 * bytes of ours in the middle of it would corrupt it.
 */
function responseInFlight(socket: Socket): boolean {
  return (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
}

function rawResponse(error: AppError, requestId: string): string {
  const body = JSON.stringify(errorBody(error));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}
