/**
 * Every code a client can receive in an Error body (REST) or `extensions.code` (GraphQL): one
 * closed set. `schema/openapi.json` and the GraphQL `ErrorCode` enum list exactly these, which a
 * test checks. GraphQL's own protocol codes (GRAPHQL_PARSE_FAILED and the like) are not ours.
 */
export const ERROR_CODES = [
  'validation_failed',
  'invalid_json',
  'bad_request',
  'missing_api_key',
  'invalid_api_key',
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_key_reused',
  'rate_limited',
  'banned',
  'api_key_revoked',
  'subscriber_too_slow',
  'internal_error',
  'shutting_down',

  // Pets that change, key scopes (issue 11)
  'pet_removed',
  'invalid_status_transition',
  'precondition_failed',
  'insufficient_scope',
  'api_key_expired',

  // Orders and inventory (issue 12)
  'pet_not_available',
  'pet_held_by_order',
  'invalid_order_transition',

  // Audit, replay and consistency (issue 13)
  'catching_up',
  'position_not_reached',

  // Operations: health (issue 14)
  'not_ready',

  // Hardening (issue 15)
  'headers_too_large',
  'request_timeout',

  // Found by attacking the service (issue 16's sessions)
  'not_acceptable',
  'expectation_failed',
  'too_many_streams',

  // A store that cannot take a write for now: a full disk, a held write lock, KurrentDB unreachable
  'store_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The one error hierarchy. Every deliberate failure has a stable `code` and an HTTP `status`;
 * the edges (REST, GraphQL) render it once. Anything that is not an AppError is unexpected:
 * it is logged with the request id and reaches clients as a generic 500.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Response headers the edge must add (for example `Allow`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, status: number, message: string, headers: Record<string, string> = {}) {
    // No stack trace: a deliberate outcome is rendered for the client and never logged with one,
    // and capturing it took about 15 µs, as much as half a served read, on every rejected request.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = new.target.name;
    this.code = code;
    this.status = status;
    this.headers = headers;
  }
}

/** Invalid input: a body, query or path value. `field` names the offending input when there is one. */
export class ValidationError extends AppError {
  readonly field: string | undefined;

  constructor(message: string, field?: string) {
    super('validation_failed', 400, message);
    this.field = field;
  }
}

export class BadRequestError extends AppError {
  constructor(code: 'bad_request' | 'invalid_json', message: string) {
    super(code, 400, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('not_found', 404, message);
  }
}

/** An `Accept` header that lists none of the media types the resource can answer with. */
export class NotAcceptableError extends AppError {
  /** `answered`: what can be answered, in words (`application/json or text/csv`). */
  constructor(answered: string) {
    super(
      'not_acceptable',
      406,
      `Accept lists no media type this request can be answered with: ${answered}.`,
    );
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: readonly string[]) {
    super('method_not_allowed', 405, `Method ${method} is not allowed here.`, { Allow: allowed.join(', ') });
  }
}

/** An `If-Match` (or `expectedVersion`) that no longer names the resource's current version. */
export class PreconditionFailedError extends AppError {
  /**
   * `expected`: the versions If-Match or expectedVersion named, none of them current. Absent: the
   * current version is one If-None-Match names (or it is `*`), which asked not to change it.
   */
  constructor(what: string, current: number, expected?: readonly number[], on: 'change' | 'read' = 'change') {
    super('precondition_failed', 412, preconditionMessage(what, current, expected, on));
  }
}

function preconditionMessage(
  what: string,
  current: number,
  expected: readonly number[] | undefined,
  on: 'change' | 'read',
): string {
  if (expected === undefined) {
    return `${what} is at version ${current}, which If-None-Match names: nothing was changed.`;
  }
  const named = expected.length === 0 ? 'the one If-Match names' : expected.join(' or ');
  return on === 'read'
    ? `${what} is at version ${current}, not ${named}: read it without If-Match to get it.`
    : `${what} is at version ${current}, not ${named}: read it again, then retry the change.`;
}

/** The same Idempotency-Key was sent again with a different request body. */
export class IdempotencyKeyReusedError extends AppError {
  constructor() {
    super(
      'idempotency_key_reused',
      422,
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    );
  }
}

/** A read model has not caught up with the store in time for this read: retry shortly. */
export class CatchingUpError extends AppError {
  constructor(what: string, retryAfterSeconds: number) {
    super('catching_up', 503, `${what} is still catching up with the event store; retry shortly.`, {
      'Retry-After': String(retryAfterSeconds),
    });
  }
}

/** A live stream's consumer fell further behind than the stream buffers; it may subscribe again. */
export class SubscriberTooSlowError extends AppError {
  constructor(bufferedItems: number) {
    super(
      'subscriber_too_slow',
      503,
      `This subscriber fell more than ${bufferedItems} events behind; subscribe again.`,
    );
  }
}

/** A key already holds as many open event streams on this server as it may (STREAMS_PER_KEY). */
export class TooManyStreamsError extends AppError {
  constructor(max: number) {
    super(
      'too_many_streams',
      429,
      `This API key already holds ${max} open event streams on this server, the most it may: close one before opening another.`,
    );
  }
}

export class InternalError extends AppError {
  constructor() {
    super('internal_error', 500, 'The server failed to handle the request. It has been logged.');
  }
}

/** The spec's Error body, as every edge renders an AppError (the API, the metrics listener). */
export type ErrorBody = { code: string; message: string; status: number };

export function errorBody(error: AppError): ErrorBody {
  return { code: error.code, message: error.message, status: error.status };
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** For exhaustive matches: the compiler proves this is never reached. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unreachable: ${JSON.stringify(value)}`);
}
