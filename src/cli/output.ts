import { once } from 'node:events';
import { failureReason } from './failure-reason.ts';

/** Write failures a caller of writeOrReject has taken on: the stream's 'error' leaves them alone. */
const handled = new WeakSet<Error>();

/**
 * How `petstore` ends when it cannot write its output. A reader that has gone (`| head`, a closed
 * pager) stops it quietly, as Unix tools do. Any other failure of stdout (a full disk) is one line
 * on stderr and status 1, never a stack trace; a failing stderr has nowhere to say so, and exits 1.
 */
export function exitOnOutputErrors(prefix: () => string): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (handled.has(error)) return;
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    process.stderr.write(`${prefix()}: cannot write to stdout: ${failureReason(error)}\n`);
    process.exit(1);
  });
  process.stderr.on('error', (error: NodeJS.ErrnoException) => {
    process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : 1);
  });
}

/**
 * Writes to stdout and resolves once the text has been handed to the system; rejects with the
 * failure (a reader gone included) for the caller to act on, instead of ending the process.
 */
export function writeOrReject(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    process.stdout.write(text, (error) => {
      if (error == null) return resolve();
      handled.add(error);
      reject(error);
    });
  });
}

/**
 * Lines to stdout that behave in a pipe: a full pipe makes the writer wait (nothing piles up in
 * memory), and a pipe closed by its reader (`| head`) ends the output quietly, with no EPIPE trace.
 */
export class LineOutput {
  readonly #stream: NodeJS.WritableStream;
  #closed = false;
  readonly #gone = new AbortController();

  constructor(stream: NodeJS.WritableStream = process.stdout) {
    this.#stream = stream;
    // What a failure means for the process is exitOnOutputErrors's to say: here, stop writing.
    stream.on('error', () => {
      this.#closed = true;
      this.#gone.abort();
    });
  }

  /** Aborted once the reader has gone: stop producing. */
  get gone(): AbortSignal {
    return this.#gone.signal;
  }

  /** Waits while the pipe is full, until the reader has gone or `stop` (an interruption) is aborted. */
  async write(line: string, stop?: AbortSignal): Promise<void> {
    if (this.#closed || stop?.aborted === true) return;
    if (this.#stream.write(`${line}\n`)) return;
    const ended = stop === undefined ? this.#gone.signal : AbortSignal.any([this.#gone.signal, stop]);
    if (ended.aborted) return;
    await Promise.race([once(this.#stream, 'drain'), once(ended, 'abort')]);
  }
}
