import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, errorBody, type ErrorCode, InternalError, isAppError } from '../shared/errors.ts';

export function sendError(reply: FastifyReply, error: AppError): FastifyReply {
  return reply
    .code(error.status)
    .headers(error.headers)
    .type('application/json; charset=utf-8')
    .send(errorBody(error));
}

/** Fastify's own client errors (body parsing, limits), renamed to our codes. */
const FRAMEWORK_CODES: Record<string, [code: ErrorCode, status: number]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: ['payload_too_large', 413],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: ['unsupported_media_type', 415],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: ['bad_request', 400],
  FST_ERR_CTP_EMPTY_JSON_BODY: ['invalid_json', 400],
  FST_ERR_CTP_INVALID_JSON_BODY: ['invalid_json', 400],
};

/**
 * Renders every error as the spec's Error body, once, at the edge. Deliberate errors keep their
 * code and message; framework client errors are translated; anything else is a 500 whose details
 * go to the log (with the request id) and never to the client.
 */
export function errorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (isAppError(error)) return sendError(reply, error);
  const clientError = translateClientError(error);
  if (clientError !== undefined) return sendError(reply, clientError);
  // The request's logger carries its id as reqId, as every request's line does.
  request.log.error({ err: error }, 'unexpected error');
  return sendError(reply, new InternalError());
}

function translateClientError(error: FastifyError): AppError | undefined {
  const known = error.code === undefined ? undefined : FRAMEWORK_CODES[error.code];
  if (known !== undefined) return new AppError(known[0], known[1], clientMessage(error, known[1]));
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500)
    return new AppError('bad_request', status, error.message);
  return undefined;
}

function clientMessage(error: FastifyError, status: number): string {
  if (status === 413) return 'The request body is larger than this server accepts.';
  if (status === 415) return 'The request body must be JSON, sent with Content-Type: application/json.';
  return error.message;
}
