import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { finished } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError, BadRequestError, errorBody } from '../shared/errors.ts';
import { requestId } from './request-id.ts';
import {
  answerBeforeItsBody,
  closeAfterAnswer,
  UNREAD_BODY_LIMITS,
  type UnreadBodyLimits,
} from './unread-body.ts';

/**
 * Fastify's `clientErrorHandler`: requests Node's HTTP parser refuses before any route or hook
 * runs (headers over Node's 16 KiB, bytes that are not HTTP/1.1, a request that takes too long to
 * arrive: its headers; a body that does not is its route's to answer, see timeOutBodyInFlight).
 * They get the spec's Error body, a fresh X-Request-Id (theirs cannot be read) under
 * which the refusal is logged at debug level, and `Connection: close`. They carry no rate-limit
 * headers and are not counted: the key is unknown, and so is the client when a proxy is in front.
 * The log line names the parser's code and reason alone, never the error itself: it carries the
 * raw bytes read (`rawPacket`), which hold the client's Authorization header and can exceed 16 KiB.
 *
 * The parser keeps reporting an error for every later chunk of the same connection, so only the
 * first is answered, after the answers to the requests that came whole before it (see
 * afterEarlierResponses). As after an answer sent before the body (see unread-body.ts), the close
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
    answered.set(socket, socket.bytesRead);
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
      const answer = answerBeforeItsBody(socket);
      if (answer !== undefined) return closeAfterAnswerGone(socket, answer, limits);
      if (timeOutBodyInFlight(socket, translate(error))) return;
    }
    afterEarlierResponses(socket, () => {
      if (!socket.writable || responseInFlight(socket)) {
        socket.destroy();
        return;
      }
      const refusal = translate(error);
      const reqId = randomUUID();
      this.log.debug(
        { reqId, status: refusal.status, code: error.code, reason: error.reason },
        'request refused by the HTTP parser',
      );
      endLingering(socket, rawResponse(refusal, reqId), limits);
    });
  };
}

/** Sends a refusal and closes the connection once the client has, or `lingerMs` have passed. */
function endLingering(socket: Socket, response: string, limits: UnreadBodyLimits): void {
  socket.end(response);
  const timer = setTimeout(() => socket.destroy(), limits.lingerMs);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
}

type PendingResponse = ServerResponse & { req?: IncomingMessage };

/**
 * A request whose headers arrived in time but whose body did not, while its route reads that body:
 * the body fails as it does when a client stops sending, so that Fastify's body parser hears it
 * and the 408 is the route's own answer, under the request's X-Request-Id, with its rate-limit
 * headers, logged, counted and traced as every answer is. Answered from here instead, it went out
 * under a new id that no log line at `info` carried, and the access log had the request closed
 * early without a status. The connection closes after the answer: the rest of the body may never
 * come. A route that has not begun to read the body yet (the guard is still deciding, waiting on
 * Redis) is told as it begins: every request whose headers Node has read is a route's to answer.
 * False when the request's response has begun.
 *
 * The request is the one Node's parser is reading (`socket.parser.incoming`), not that of the
 * response the connection is writing: a request pipelined behind one whose answer is still being
 * made has its response queued, and its route, reading its body, would otherwise not be told.
 */
function timeOutBodyInFlight(socket: Socket, refusal: AppError): boolean {
  const { parser, _httpMessage: response } = socket as Socket & {
    parser?: { incoming?: IncomingMessage | null } | null;
    _httpMessage?: PendingResponse | null;
  };
  const request = parser?.incoming;
  if (request == null || request.complete || (response?.req === request && response.headersSent))
    return false;
  closeAfterAnswer(request);
  if (request.listenerCount('error') > 0) request.emit('error', refusal);
  else {
    // Fastify's body parser listens for 'error' as it begins to read: told then, it answers 408.
    // A route that answers without reading the body (the guard's 401 or 429) closes the connection
    // after its answer, lingering, which listens too: that one is not told.
    const tell = (event: string | symbol) => {
      if (event !== 'error') return;
      request.off('newListener', tell);
      process.nextTick(() => {
        if (answerBeforeItsBody(socket) === undefined) request.emit('error', refusal);
      });
    };
    request.on('newListener', tell);
  }
  return true;
}

/**
 * The body of a request answered before it arrived (a 401, a 404, a GET's answer: see
 * unread-body.ts) has not arrived in time. The request has had its answer: a 408 after it, under a
 * fresh id, was a second answer to one request, which a client reads as the answer to its next. The
 * connection closes, lingering, once that answer has gone, without another.
 */
function closeAfterAnswerGone(socket: Socket, answer: ServerResponse, limits: UnreadBodyLimits): void {
  const close = () => (socket.writable ? endLingering(socket, '', limits) : socket.destroy());
  if (answer.writableFinished) close();
  else finished(answer, close);
}

/**
 * Runs `then` once every response to a request that arrived whole on this connection before the
 * refused bytes has been sent. A client that pipelines (several requests written before the first
 * answer) can follow a good request with bytes the parser refuses in the same packet: the parser
 * reports them while the good request is still being handled, and answering at once put the
 * refusal first on the connection and closed it, so the good request ran (a POST created its
 * pet) but its answer was never sent, and the client read the refusal as the answer to it. Node
 * hands the connection to the next pipelined response as each one finishes. A response whose
 * request has not arrived whole is to the request the refused bytes belong to: it is not waited for.
 */
function afterEarlierResponses(socket: Socket, then: () => void): void {
  const response = (socket as Socket & { _httpMessage?: PendingResponse | null })._httpMessage;
  if (response == null || response.req?.complete !== true || response.writableFinished) {
    then();
    return;
  }
  // A response that closed unfinished took the connection with it: then() finds it unwritable.
  finished(response, (error) =>
    error === undefined || error === null ? afterEarlierResponses(socket, then) : then(),
  );
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

function rawResponse(error: AppError, reqId: string): string {
  const body = JSON.stringify(errorBody(error));
  return (
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${reqId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * RFC 9110 §10.1.1: 100-continue is the only expectation defined, and a server may refuse one it
 * cannot meet with 417. Node answers an `Expect` without 100-continue with a bare 417 unless the
 * server listens for `checkExpectation`, and takes any value that mentions 100-continue
 * (`100-continue, the-moon`) as that alone, sending 100 Continue. These listeners give the refusal
 * the Error body and an X-Request-Id, as the parser's refusals get, log it at debug level, and
 * send 100 Continue only for a value that is 100-continue alone (in any case). A refused request
 * never reaches a route: its body is not read.
 */
export function refuseUnmetExpectations(app: FastifyInstance): void {
  const refuse = (request: IncomingMessage, response: ServerResponse) => {
    const refusal = new AppError(
      'expectation_failed',
      417,
      'This server meets no expectation but 100-continue: send the request without that Expect header.',
    );
    const reqId = requestId(request);
    app.log.debug({ reqId, expect: request.headers.expect }, 'request refused: unmet Expect');
    const body = JSON.stringify(errorBody(refusal));
    response.shouldKeepAlive = false;
    response.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      'X-Request-Id': reqId,
    });
    response.end(body);
  };
  app.server.on('checkExpectation', refuse);
  // With this listener, Node leaves 100 Continue and the 'request' event to it.
  app.server.on('checkContinue', (request: IncomingMessage, response: ServerResponse) => {
    if (request.headers.expect?.trim().toLowerCase() !== '100-continue') return refuse(request, response);
    response.writeContinue();
    app.server.emit('request', request, response);
  });
}

/**
 * CONNECT asks for a tunnel to another host (RFC 9110 §9.3.6), which a proxy opens and this service
 * does not. Node's parser hands such a request to the server's `connect` listeners instead of its
 * `request` ones, whatever its target, and without a listener destroys the socket: the client got
 * no answer at all. This one answers 400 bad_request with the Error body and the request's
 * X-Request-Id (its headers were read), logs it at debug level and closes the connection, whose
 * parser Node has let go, after the answers to the requests that came before it. As after the
 * parser's refusals, the close lingers.
 */
export function refuseConnect(app: FastifyInstance, limits: UnreadBodyLimits = UNREAD_BODY_LIMITS): void {
  app.server.on('connect', (request: IncomingMessage, socket: Socket) => {
    // Node took its own error listener off with the parser: an error would otherwise crash the process.
    socket.on('error', () => socket.destroy());
    const refusal = new BadRequestError(
      'bad_request',
      'This server is not a proxy: it opens no tunnel (CONNECT). Send the request itself, with its path.',
    );
    const reqId = requestId(request);
    app.log.debug({ reqId, status: refusal.status }, 'request refused: CONNECT');
    // Node emits `connect` as soon as it has read the request, while requests pipelined before it
    // may still be answered: their answers go first (see afterEarlierResponses).
    afterEarlierResponses(socket, () => {
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      endLingering(socket, rawResponse(refusal, reqId), limits);
      socket.resume();
    });
  });
}

/**
 * Node's parser lets the request lines of HTTP/2.0 and HTTP/0.9 through (it refuses others, such as
 * HTTP/1.2) and would answer them as HTTP/1.1. This server speaks HTTP/1.1 and 1.0 alone: another
 * version is the client's fault, a 400 as the parser gives HTTP/1.2, rather than the 505 RFC 9110
 * §15.6.6 allows (every refusal of a client's request here is a 4xx). Checked as a request reaches
 * Fastify, before the guard: such a request is not counted.
 */
export function versionFault(request: IncomingMessage): AppError | undefined {
  if (request.httpVersionMajor === 1) return undefined;
  return new BadRequestError(
    'bad_request',
    `This server speaks HTTP/1.1 and HTTP/1.0, not HTTP/${request.httpVersion}: send the request as HTTP/1.1.`,
  );
}

/**
 * RFC 9112 §6.1: a request whose Transfer-Encoding names a coding the server does not understand
 * is refused. Node's parser decodes chunked alone, and hands on the bytes of any coding listed
 * before it (`gzip, chunked`) as the body: they would reach the JSON parser still coded. A 400
 * here, rather than the 501 the RFC suggests (every refusal of a client's request is a 4xx).
 */
export function transferCodingFault(request: IncomingMessage): AppError | undefined {
  const codings = request.headers['transfer-encoding'];
  if (codings === undefined || codings.trim().toLowerCase() === 'chunked') return undefined;
  return new BadRequestError(
    'bad_request',
    'The request names a transfer coding this server does not decode: send the body with Transfer-Encoding: chunked alone, or with Content-Length.',
  );
}

/**
 * RFC 9112 §3.2: an HTTP/1.1 request without a Host header, or any request with more than one, is a
 * 400. Node tells the first only with a bare 400 (the server is made with `requireHostHeader: false`
 * so that the service tells it instead, with the Error body), and keeps the first of several Host
 * lines. Checked as a request reaches Fastify, before the guard: such a request is not counted.
 */
export function hostFault(request: IncomingMessage): AppError | undefined {
  const hosts = hostLines(request.rawHeaders);
  if (hosts === 1 || (hosts === 0 && !isHttp11OrLater(request))) return undefined;
  return new BadRequestError(
    'bad_request',
    hosts === 0
      ? 'An HTTP/1.1 request needs a Host header (RFC 9112 §3.2).'
      : `A request carries one Host header, not ${hosts} (RFC 9112 §3.2).`,
  );
}

function hostLines(rawHeaders: readonly string[]): number {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts += 1;
  }
  return hosts;
}

function isHttp11OrLater(request: IncomingMessage): boolean {
  return request.httpVersionMajor > 1 || (request.httpVersionMajor === 1 && request.httpVersionMinor >= 1);
}
