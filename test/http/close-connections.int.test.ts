import { connect, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.ts';

/**
 * close() on a listening server, with connections that Node's own server.close() would wait for:
 * one that has sent no request yet (Node counts it busy until its 60 s headers timeout), and one
 * whose event stream was still open (it goes idle only after close started). The test timeout,
 * 10 s, is far below either wait, and above the drain time (5 s) after which a request that never
 * finishes is cut off.
 */

let service: TestApp;
let origin: string;
beforeEach(async () => {
  service = await startTestApp();
  origin = await service.app.listen({ port: 0, host: '127.0.0.1' });
});
afterEach(() => service.close());

/** A TCP connection to the server that sends nothing, and the promise of its closing. */
async function silentConnection(): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { port } = new URL(origin);
  const socket = connect(Number(port), '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('error', () => {});
  return { socket, closed };
}

describe('close()', () => {
  it('closes a connection that never sent a request, instead of waiting for its headers', async () => {
    const { closed } = await silentConnection();
    await service.app.close();
    await closed;
  }, 10_000);

  it('closes a keep-alive connection once its event stream, ended by the close, has gone out', async () => {
    const response = await fetch(`${origin}/v1/audit/events`, { headers: { accept: 'text/event-stream' } });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const body = response.text();
    await service.app.close();
    expect(await body).toBe('retry: 1000\n\n');
  }, 10_000);

  it('cuts, after the drain time, a request whose body never finishes', async () => {
    const { socket, closed } = await silentConnection();
    socket.write(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 32\r\n\r\n{"na',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await service.app.close();
    await closed;
  }, 10_000);
});
