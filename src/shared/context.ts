/** Who asks, for the event metadata and logs. Adapters build it from the request. */
export type RequestContext = {
  /** The request id (X-Request-Id): every event of one business action carries it. */
  readonly correlationId: string;
  /** What directly caused the action: the request id when absent (see event-metadata.ts). */
  readonly causationId?: string;
  /** The authenticated API key's id; absent for system actions. */
  readonly apiKeyId?: string;
  /** The key holds the `admin` scope: it may see and change what other keys own (their orders). */
  readonly admin?: boolean;
  /**
   * Told the store position of what a write appended, so that the edge can hand it to the client
   * (X-Store-Position, GraphQL `extensions`). Absent where nobody asks (the CLI, tests).
   */
  readonly recordPosition?: (position: bigint) => void;
  /** The caller's span as a W3C traceparent, when tracing is on: the application's spans continue it. */
  readonly traceparent?: string;
};

/**
 * Time and randomness come in from outside, so that tests can fix them. `nowMs` is the same instant
 * as `now`, without allocating a Date (for code that runs on every request).
 */
export type Clock = { now(): Date; nowMs(): number };
export const systemClock: Clock = { now: () => new Date(), nowMs: Date.now };

/** A clock stopped at `instant`: for the events of one decision, which all happened when it was made. */
export function clockAt(instant: Date): Clock {
  return { now: () => instant, nowMs: () => instant.getTime() };
}
