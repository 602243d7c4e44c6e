import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';

/** A pino logger whose JSON lines land in `lines`, parsed: what a log collector would receive. */
export function capturedLogger(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n'))
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level }, stream), lines };
}
