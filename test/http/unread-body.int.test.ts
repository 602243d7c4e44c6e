import http from 'node:http';
import { connect, type Socket } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { closeGentlyAfterUnreadBodies } from '../../src/http/unread-body.ts';

/**
 * What the server reads of a body it answered without, over real sockets: a Fastify server with a
 * 16 KiB body limit and small discard limits (256 KiB, 1 s), so that each bound shows quickly.
 */

const KiB = 1024;
const LIMITS = { discardBytes: 256 * KiB, lingerMs: 1000 };
const BODY_LIMIT = 16 * KiB;

let app: FastifyInstance;
let port: number;
/** The server's side of every connection, in order. */
let serverSockets: Socket[];

beforeEach(async () => {
  app = Fastify({ bodyLimit: BODY_LIMIT });
  closeGentlyAfterUnreadBodies(app, LIMITS);
  app.post('/', async () => ({ ok: true }));
  app.get('/', (_request, reply) => {
    reply.send({ ok: true });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  serverSockets = [];
  app.server.on('connection', (socket: Socket) => serverSockets.push(socket));
});
afterEach(async () => {
  await app.close();
});

/** A client that sends a chunked POST and never stops writing, whatever the server answers. */
function relentlessClient(): {
  socket: Socket;
  closed: Promise<void>;
  response: Promise<string>;
  written: () => number;
} {
  // Half-open allowed: a Node socket otherwise ends its own side when the server's FIN arrives,
  // and its next write fails and destroys it, so the client would stop sending on its own.
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let written = 0;
  let response = '';
  const chunk = `10000\r\n${'a'.repeat(0x10000)}\r\n`;
  socket.on('error', () => {});
  socket.on('data', (data: Buffer) => (response += data.toString('latin1')));
  socket.write(
    'POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
  );
  const write = (): void => {
    while (!socket.destroyed && socket.write(chunk)) written += 0x10000;
    if (!socket.destroyed) socket.once('drain', write);
  };
  write();
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return { socket, closed, response: closed.then(() => response), written: () => written };
}

it('reads no more than the discard limit of a refused body, however much the client sends', async () => {
  const client = relentlessClient();
  await new Promise((resolve) => setTimeout(resolve, LIMITS.lingerMs / 2));
  const [server] = serverSockets;
  expect(client.written()).toBeGreaterThan(2 * (BODY_LIMIT + LIMITS.discardBytes));
  // Besides the limit: what Fastify read before refusing, and the socket's and stream's buffers
  // (at most 64 KiB each) that fill before reading stops.
  expect(server!.bytesRead).toBeLessThanOrEqual(BODY_LIMIT + LIMITS.discardBytes + 3 * 64 * KiB);
  expect(await client.response).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n[^]*connection: close\r\n/i);
});

it('closes the connection of a client that keeps sending once the linger time has passed', async () => {
  const started = performance.now();
  const client = relentlessClient();
  await new Promise((resolve) => setTimeout(resolve, LIMITS.lingerMs / 4));
  // Still open well before the linger time: judged only when this timer fired in time (a machine
  // busy with other tests may wake it after the linger time has passed).
  if (performance.now() - started < LIMITS.lingerMs / 2) expect(client.socket.destroyed).toBe(false);
  const closed = await Promise.race([
    client.closed.then(() => true),
    new Promise((resolve) => setTimeout(() => resolve(false), LIMITS.lingerMs + 2000)),
  ]);
  expect(closed).toBe(true);
});

it('closes at once when a refused body ends within the discard limit', async () => {
  const socket = connect(port, '127.0.0.1');
  const closed = new Promise((resolve) => socket.on('close', resolve));
  let response = '';
  socket.on('data', (data: Buffer) => (response += data.toString('latin1')));
  const body = 'a'.repeat(100 * KiB);
  const started = Date.now();
  socket.end(
    `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
      `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
  );
  await closed;
  expect(Date.now() - started).toBeLessThan(LIMITS.lingerMs);
  expect(response).toMatch(/^HTTP\/1\.1 413 /);
});

it('keeps the connection when the refused body’s declared length is within the discard limit', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = () =>
    new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const request = http.request(
        { port, host: '127.0.0.1', method: 'POST', agent, headers: { 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
          );
        },
      );
      request.on('error', reject);
      request.end(Buffer.alloc(200 * KiB, 'a'));
    });
  expect(await post()).toEqual({ status: 413, connection: undefined });
  expect(await post()).toEqual({ status: 413, connection: undefined });
  expect(serverSockets).toHaveLength(1);
  agent.destroy();
});

it('keeps the connection of a request without a body, though a synchronous handler answers it', async () => {
  const response = await fetch(`http://127.0.0.1:${port}/`);
  expect(response.headers.get('connection')).toBe('keep-alive');
  await response.arrayBuffer();
});
