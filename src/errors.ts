/**
 * The one error hierarchy. Every deliberate failure has a stable `code` and an HTTP `status`;
 * the edges (REST, GraphQL) render it once. Anything that is not an AppError is unexpected:
 * it is logged with the request id and reaches clients as a generic 500.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  /** Response headers the edge must add (for example `Allow`, `Retry-After`). */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, status: number, message: string, headers: Record<string, string> = {}) {
    super(message);
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
  constructor(code: string, message: string) {
    super(code, 400, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('not_found', 404, message);
  }
}

export class MethodNotAllowedError extends AppError {
  constructor(method: string, allowed: readonly string[]) {
    super('method_not_allowed', 405, `Method ${method} is not allowed here.`, { Allow: allowed.join(', ') });
  }
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

export class InternalError extends AppError {
  constructor() {
    super('internal_error', 500, 'The server failed to handle the request. It has been logged.');
  }
}

export function isAppError(error: unknown): error is AppError {
  return error instanceof AppError;
}

/** For exhaustive matches: the compiler proves this is never reached. */
export function assertUnreachable(value: never): never {
  throw new Error(`Unreachable: ${JSON.stringify(value)}`);
}
