import type { Logger } from 'pino';

/**
 * The error log of a subscription retried on a timer: a failure that repeats on every retry (an
 * unreadable event fails the same way until the store is restored) is logged once, and again only
 * after a batch has gone through in between.
 */
export class RetriedFailureLog {
  readonly #logger: Logger;
  readonly #message: string;
  #last: string | undefined;

  constructor(logger: Logger, message: string) {
    this.#logger = logger;
    this.#message = message;
  }

  failed(error: unknown): void {
    const text = error instanceof Error ? error.message : String(error);
    if (text !== this.#last) this.#logger.error({ err: error }, this.#message);
    this.#last = text;
  }

  succeeded(): void {
    this.#last = undefined;
  }
}
