import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type LogMethod = (...args: unknown[]) => void;

/**
 * A request's logger that becomes a pino child only when the request logs something. Request
 * logging is off (see app.ts), so most requests never log, and a child made up front for each of
 * them cost about 0.5 µs of a 30 µs list request. Once made, the child carries the same bindings
 * (the request id) and options as Fastify's own would have.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#log('error', args);
  }

  warn(...args: unknown[]): void {
    this.#log('warn', args);
  }

  info(...args: unknown[]): void {
    this.#log('info', args);
  }

  debug(...args: unknown[]): void {
    this.#log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#log('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #log(level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace', args: unknown[]): void {
    const logger = this.#made();
    (logger[level] as LogMethod).apply(logger, args);
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }
}

/** Fastify's `childLoggerFactory`: a lazy child per request. */
export function lazyRequestLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
