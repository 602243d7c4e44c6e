import { describe, expect, it } from 'vitest';
import { sseBody } from '../../src/http/sse.ts';

async function* numbered(count: number) {
  for (let id = 1; id <= count; id++) yield { id };
}

describe('sseBody', () => {
  it('frames each item as an event with its id, after the reconnection delay', async () => {
    const chunks: string[] = [];
    for await (const chunk of sseBody(numbered(2), (item) => ({ id: String(item.id), data: item })))
      chunks.push(String(chunk));
    expect(chunks.join('')).toBe('retry: 1000\n\nid: 1\ndata: {"id":1}\n\nid: 2\ndata: {"id":2}\n\n');
  });

  it('frames an item without data as its id alone, which moves the client’s last event id and dispatches nothing', async () => {
    const chunks: string[] = [];
    const frameOf = (item: { id: number }) =>
      item.id === 2 ? { id: '2' } : { id: String(item.id), data: item };
    for await (const chunk of sseBody(numbered(3), frameOf)) chunks.push(String(chunk));
    expect(chunks.join('')).toBe(
      'retry: 1000\n\nid: 1\ndata: {"id":1}\n\nid: 2\n\nid: 3\ndata: {"id":3}\n\n',
    );
  });

  it('lets the event loop take its other work while a fast reader drains a long feed', async () => {
    let framed = 0;
    let framedWhenOtherWorkRan: number | undefined;
    setImmediate(() => (framedWhenOtherWorkRan = framed));
    for await (const _chunk of sseBody(numbered(1000), (item) => ({ id: String(item.id), data: item })))
      framed++;
    expect(framed).toBe(1001);
    expect(framedWhenOtherWorkRan).toBeLessThan(100);
  });
});
