import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

/** A pino logger whose lines a test can read, parsed. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
