import type { ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import { TooManyStreamsError } from '../shared/errors.ts';
import { afterClose } from './response-closed.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Counts the event stream this request opens (REST's server-sent events, a GraphQL
     * subscription) against its key's STREAMS_PER_KEY until `response` closes; throws
     * TooManyStreamsError, before anything of the stream starts, when the key holds that many already.
     */
    holdStream(response: ServerResponse): void;
  }
}

/** STREAMS_PER_KEY's default. */
export const DEFAULT_STREAMS_PER_KEY = 20;

/**
 * How many event streams one key may hold open on this process at once. A stream costs one request
 * of the rate limit when it opens and then nothing, for as long as it stays open: without a cap, a
 * key could hold thousands, each with its buffers, its store subscription and its connection. A
 * request behind the open guard (no keys) is counted by its client address. A slot is given back
 * when the stream's response closes, however it ends.
 */
export const streamSlots = fp<{ max: number; onChange?: (change: 1 | -1) => void }>(
  async (app, { max, onChange }) => {
    const open = new Map<string, number>();
    app.decorateRequest('holdStream', function holdStream(response: ServerResponse) {
      const holder = this.apiKey?.keyId ?? `address ${this.ip}`;
      const held = open.get(holder) ?? 0;
      if (held >= max) throw new TooManyStreamsError(max);
      open.set(holder, held + 1);
      onChange?.(1);
      // A client that left while the request waited (X-Min-Position) has closed the response already.
      afterClose(response, () => {
        const left = open.get(holder)! - 1;
        if (left === 0) open.delete(holder);
        else open.set(holder, left);
        onChange?.(-1);
      });
    });
  },
  { name: 'stream-slots', dependencies: ['guard'] },
);
