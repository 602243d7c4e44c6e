import { once } from 'node:events';

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
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.#closed = true;
      this.#gone.abort();
    });
  }

  /** Aborted once the reader has gone: stop producing. */
  get gone(): AbortSignal {
    return this.#gone.signal;
  }

  async write(line: string): Promise<void> {
    if (this.#closed) return;
    if (this.#stream.write(`${line}\n`)) return;
    await Promise.race([once(this.#stream, 'drain'), once(this.#gone.signal, 'abort')]);
  }
}
