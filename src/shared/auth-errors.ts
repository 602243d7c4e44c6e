import { AppError } from './errors.ts';

/**
 * The guard's failures, in the one hierarchy of src/shared/errors.ts. `headers` carry what RFC 6750 and
 * RFC 9110 ask of a 401 and a 429; the rate-limit headers are already on the reply by then.
 */

const REALM = 'Bearer realm="petstore"';

/** No credentials: RFC 6750 §3.1 says a challenge without an error code. */
export class MissingApiKeyError extends AppError {
  constructor() {
    super('missing_api_key', 401, 'Send an API key as Authorization: Bearer <key>.', {
      'WWW-Authenticate': REALM,
    });
  }
}

/** A key was sent but is malformed, unknown or revoked; which one is not told. */
export class InvalidApiKeyError extends AppError {
  constructor() {
    super('invalid_api_key', 401, 'The API key is malformed, unknown or revoked.', {
      'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="The API key is malformed, unknown or revoked"`,
    });
  }
}

/** `keyed`: the limit is a key's, which a ban follows; an address's (no valid key) is never banned. */
export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, keyed = true) {
    super(
      'rate_limited',
      429,
      `Rate limit exceeded: retry after ${retryAfterSeconds} s, with exponential backoff.` +
        (keyed ? ' Keys that keep sending are banned.' : ''),
      { 'Retry-After': String(retryAfterSeconds) },
    );
  }
}

export class BannedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      'banned',
      429,
      `This API key is banned for sending after 429; the ban ends in ${retryAfterSeconds} s.`,
      {
        'Retry-After': String(retryAfterSeconds),
      },
    );
  }
}

export class ApiKeyRevokedError extends AppError {
  constructor(keyId: string) {
    super('api_key_revoked', 409, `API key ${keyId} is revoked; issue a new key instead.`);
  }
}

/** A key whose expiry has passed: 401, and the challenge says so (RFC 6750). */
export class ApiKeyExpiredError extends AppError {
  constructor(expiredAt: string) {
    super('api_key_expired', 401, `The API key expired at ${expiredAt}; ask for a new one.`, {
      'WWW-Authenticate': `${REALM}, error="invalid_token", error_description="The API key expired at ${expiredAt}"`,
    });
  }
}

/** The key is valid but lacks the scope this operation needs: 403 (RFC 6750 §3.1). */
export class InsufficientScopeError extends AppError {
  readonly scope: string;

  constructor(scope: string) {
    super('insufficient_scope', 403, `This API key lacks the scope ${scope}, which this operation needs.`, {
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${scope}"`,
    });
    this.scope = scope;
  }
}
