import { pino, type Logger } from 'pino';

/** How long an exit waits for the log's last lines to be written, or to fail. */
const LOG_END_MS = 1000;

/** pino's own destination (sonic-boom): `sync` false when it writes asynchronously. */
type LogStream = NodeJS.EventEmitter & { end(): void; readonly sync: boolean };

/**
 * Exits with `code` once the log lines written so far have been written, or have failed. pino writes
 * them asynchronously and, at exit, writes what is left synchronously, and sonic-boom 4 (pino 10's)
 * retries that write forever when nobody reads the pipe any more (EPIPE: a `| tee` that ended, a
 * log collector restarted): the process would never exit, even past the shutdown's deadline.
 */
export async function exitAfterLogs(logger: Logger, code: number): Promise<never> {
  await endLogs(logger);
  process.exit(code);
}

/**
 * Ends the logger's output, once its lines so far are written or have failed, for a process about
 * to end (see `exitAfterLogs`). Ended first, the stream meets a broken pipe asynchronously, as an
 * error, which pino takes as the end of its output; with a reader, the lines are written as before.
 */
export async function endLogs(logger: Logger): Promise<void> {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym] as
    Partial<LogStream> | undefined;
  // Only an asynchronous destination has lines left to write at exit (pino-pretty's writes at once).
  if (stream?.sync !== false || typeof stream.end !== 'function' || typeof stream.once !== 'function') return;
  const log = stream as LogStream;
  await new Promise<void>((resolve) => {
    // Held, not unref'd: after a broken pipe pino makes `end` do nothing, and no event may come.
    const timer = setTimeout(done, LOG_END_MS);
    function done() {
      clearTimeout(timer);
      resolve();
    }
    log.once('close', done);
    log.once('error', done);
    log.end();
  });
}
