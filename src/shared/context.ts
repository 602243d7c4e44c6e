/** Who asks, for the event metadata and logs. Adapters build it from the request. */
export type RequestContext = {
  readonly correlationId: string;
  /** The authenticated API key's id; absent for system actions. */
  readonly apiKeyId?: string;
  /** The key holds the `admin` scope: it may see and change what other keys own (their orders). */
  readonly admin?: boolean;
  /**
   * Told the store position of what a write appended, so that the edge can hand it to the client
   * (X-Store-Position, GraphQL `extensions`). Absent where nobody asks (the CLI, tests).
   */
  readonly recordPosition?: (position: bigint) => void;
};

/**
 * Time and randomness come in from outside, so that tests can fix them. `nowMs` is the same instant
 * as `now`, without allocating a Date (for code that runs on every request).
 */
export type Clock = { now(): Date; nowMs(): number };
export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };
