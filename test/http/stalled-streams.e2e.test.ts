import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDataDir } from '../support/seed-store.ts';
import { createScopedApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Event streams whose client takes nothing of them while they have events to send are ended after
 * STREAM_STALL_SECONDS (1 s here): 50,000 events replayed from position 0 are far more than the
 * socket buffers hold, so a client that never reads stalls its stream.
 */

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  temp = makeTempDir();
  await seedDataDir(temp.dir, 50_000);
  key = createScopedApiKey({ PETSTORE_DATA_DIR: temp.dir }, ['audit:read']);
  server = await startServerProcess({
    PETSTORE_DATA_DIR: temp.dir,
    STREAM_STALL_SECONDS: '1',
    LOG_LEVEL: 'info',
  });
}, 60_000);
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

/**
 * A connection that sends `request` and then reads nothing (a paused socket does not read, so it
 * does not see the server close it either: the server's log line says so).
 */
async function neverReading(request: string): Promise<net.Socket> {
  const { port } = new URL(server.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(request);
  socket.pause();
  return socket;
}

const auditFeed = () =>
  `GET /v1/audit/events?after=0 HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`;

function subscription(): string {
  const body = JSON.stringify({ query: 'subscription { auditEvent(after: "0") { position type data } }' });
  return (
    `POST /graphql HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

const endedLines = () => server.output.filter((line) => line.includes('"msg":"event stream ended'));

describe('an event stream whose client takes nothing of it', () => {
  it.each([
    ['the audit feed', auditFeed],
    ['a GraphQL subscription', subscription],
  ])(
    'is ended on %s, with one log line',
    async (_stream, request) => {
      const before = endedLines().length;
      const socket = await neverReading(request());
      await expect.poll(() => endedLines().length, { timeout: 15_000 }).toBe(before + 1);
      socket.destroy();
    },
    30_000,
  );

  it('is not ended while its client reads, however long the replay takes', async () => {
    const response = await fetch(`${server.url}/v1/audit/events?after=0`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    const reader = response.body!.getReader();
    let bytes = 0;
    const started = performance.now();
    // Reads slowly for 3 s, three times the stall limit: a chunk every 20 ms.
    while (performance.now() - started < 3_000) {
      const { done, value } = await reader.read();
      expect(done).toBe(false);
      bytes += value!.byteLength;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await reader.cancel();
    expect(bytes).toBeGreaterThan(0);
  }, 30_000);

  it('is not ended when the server itself was paused past the limit while its client read', async () => {
    const before = endedLines().length;
    const response = await fetch(`${server.url}/v1/audit/events?after=0`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    const reader = response.body!.getReader();
    let reading = true;
    // The client reads a chunk every 20 ms all along, until it stops or the stream ends.
    const read = (async () => {
      while (reading) {
        if ((await reader.read()).done) return 'ended';
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return 'still open';
    })();
    // The process stops (a VM paused, a process starved of CPU) for twice the limit, then runs on.
    await new Promise((resolve) => setTimeout(resolve, 500));
    server.child.kill('SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    server.child.kill('SIGCONT');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    reading = false;
    expect(await read.catch((error: unknown) => String(error))).toBe('still open');
    await reader.cancel();
    expect(endedLines().length).toBe(before);
  }, 30_000);
});
