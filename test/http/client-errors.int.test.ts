import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { buildApp } from '../../src/http/app.ts';
import { openGuard } from '../../src/http/guard.ts';
import { type Service, startService } from '../../src/service.ts';
import type { CounterStore } from '../../src/application/ports/counters.ts';
import {
  asynchronousCounters,
  controlledClock,
  type GuardedApp,
  startGuardedApp,
} from '../support/guarded-app.ts';
import { holdableStore } from '../support/holdable-store.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Requests Node's HTTP parser refuses before any route or hook sees them, sent over real sockets:
 * each gets the spec's Error body, an X-Request-Id and `Connection: close`.
 */

let service: GuardedApp;
let port: number;
/** What the service logged, at debug level, as parsed JSON lines. */
const logLines: Record<string, unknown>[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      callback();
    },
  });
  service = await startGuardedApp({
    clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
    logger: pino({ level: 'debug' }, stream),
  });
  await service.app.listen({ port: 0, host: '127.0.0.1' });
  port = (service.app.server.address() as { port: number }).port;
});
afterAll(async () => {
  await service.close();
});

type RawResponse = { status: number; headers: Record<string, string>; body: string };

/** Sends these bytes as they are, and reads the answer until the server closes the connection. */
async function sendRaw(request: string): Promise<RawResponse> {
  return parse(await receiveAll(request));
}

/**
 * Every byte the server (the main one, unless `to` names another port) sends back to these, as
 * text, until it closes the connection. The client closes its side once it has written them,
 * unless `keepOpen`.
 */
function receiveAll(request: string, { keepOpen = false, to = port } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, '127.0.0.1');
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    if (keepOpen) socket.write(request);
    else socket.end(request);
  });
}

function parse(raw: string): RawResponse {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('a request the HTTP parser refuses', () => {
  it('answers headers over 16 KiB with 431 headers_too_large and the Error body', async () => {
    const response = await sendRaw(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({
      code: 'headers_too_large',
      message: 'The request headers are larger than this server accepts (16 KiB in all).',
      status: 431,
    });
  });

  it('answers a malformed header with 400 bad_request, saying what the parser found', async () => {
    const response = await sendRaw('GET /v1/pets HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      code: 'bad_request',
      message: 'The request is not valid HTTP/1.1: Invalid header token.',
      status: 400,
    });
  });

  it('answers a request line that is not HTTP with 400 bad_request', async () => {
    const response = await sendRaw('HELLO THERE\r\n\r\n');
    expect([response.status, JSON.parse(response.body).code]).toEqual([400, 'bad_request']);
  });

  it.each(['HTTP/2.0', 'HTTP/0.9'])(
    'answers a request line of %s, which the parser lets through, with 400 bad_request as it does HTTP/1.2',
    async (version) => {
      const response = await sendRaw(`GET /health/live ${version}\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect([response.status, JSON.parse(response.body)]).toEqual([
        400,
        {
          code: 'bad_request',
          message: `This server speaks HTTP/1.1 and HTTP/1.0, not ${version}: send the request as HTTP/1.1.`,
          status: 400,
        },
      ]);
    },
  );

  it('answers a body sent with a transfer coding beside chunked (gzip, chunked) with 400 bad_request', async () => {
    const response = await sendRaw(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
    );
    expect([response.status, JSON.parse(response.body)]).toEqual([
      400,
      {
        code: 'bad_request',
        message:
          'The request names a transfer coding this server does not decode: send the body with Transfer-Encoding: chunked alone, or with Content-Length.',
        status: 400,
      },
    ]);
  });

  it('carries a fresh X-Request-Id, JSON content type, exact length and Connection: close', async () => {
    const response = await sendRaw('HELLO THERE\r\n\r\n');
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.body));
    expect(response.headers.connection).toBe('close');
  });

  it('carries no rate-limit headers: neither the key nor the client is known', async () => {
    const response = await sendRaw(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(Object.keys(response.headers).filter((name) => name.includes('ratelimit'))).toEqual([]);
  });

  it('logs the parser code and reason under reqId, the X-Request-Id, never the raw bytes with the Authorization header', async () => {
    const secret = `psk_${randomUUID()}`;
    const response = await sendRaw(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const reqId = response.headers['x-request-id'];
    expect(logLines.filter((line) => line.reqId === reqId)).toEqual([
      {
        level: 20,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId,
        status: 431,
        code: 'HPE_HEADER_OVERFLOW',
        reason: 'Header overflow',
        msg: 'request refused by the HTTP parser',
      },
    ]);
    expect(JSON.stringify(logLines)).not.toContain(secret);
  });

  it('answers a request pipelined before refused bytes first, then the refusal: the good one is not left unanswered', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const body = JSON.stringify({ name: 'Piped', categoryId: 1 });
    const raw = await receiveAll(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        'HELLO THERE\r\n\r\n',
      { keepOpen: true },
    );
    const statusLines = raw.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+/g);
    expect(statusLines).toEqual(['HTTP/1.1 201 Created', 'HTTP/1.1 400 Bad Request']);
  });

  it('answers a malformed chunk in the body of a request at once with 400, without waiting for that request', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const response = await sendRaw(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    expect([response.status, JSON.parse(response.body)]).toEqual([
      400,
      {
        code: 'bad_request',
        message: 'The request is not valid HTTP/1.1: Invalid character in chunk size.',
        status: 400,
      },
    ]);
  });

  it('reaches a real client that sends a 5 MB body after headers over the limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`http://127.0.0.1:${port}/v1/pets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-big': 'a'.repeat(20_000) },
        body: Buffer.alloc(5 * 1024 * 1024, 'a'),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    expect(statuses).toEqual([431, 431, 431, 431, 431]);
  });
});

describe('Host and Expect, which Node would answer with an empty body', () => {
  it('answers an HTTP/1.1 request without Host with 400 bad_request, the Error body and an X-Request-Id', async () => {
    const response = await sendRaw('GET /v1/pets HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      code: 'bad_request',
      message: 'An HTTP/1.1 request needs a Host header (RFC 9112 §3.2).',
      status: 400,
    });
    expect(response.headers['x-request-id']).toMatch(UUID);
  });

  it('answers a request with two Host headers with 400 bad_request instead of serving the first', async () => {
    const response = await sendRaw(
      'GET /health/live HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
    );
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({
      code: 'bad_request',
      message: 'A request carries one Host header, not 2 (RFC 9112 §3.2).',
      status: 400,
    });
  });

  it('serves an HTTP/1.0 request without Host, which that version allows', async () => {
    const response = await sendRaw('GET /health/live HTTP/1.0\r\n\r\n');
    expect(response.status).toBe(200);
  });

  it('answers an Expect other than 100-continue with 417 expectation_failed and the Error body', async () => {
    const response = await sendRaw(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: the-moon\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(response.status).toBe(417);
    expect(JSON.parse(response.body)).toEqual({
      code: 'expectation_failed',
      message:
        'This server meets no expectation but 100-continue: send the request without that Expect header.',
      status: 417,
    });
    expect(response.headers['x-request-id']).toMatch(UUID);
    expect(response.headers.connection).toBe('close');
  });

  it('logs the refused Expect under reqId, the X-Request-Id it answered with', async () => {
    const response = await sendRaw(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: the-moon\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    const reqId = response.headers['x-request-id'];
    expect(
      logLines.filter((line) => line.msg === 'request refused: unmet Expect' && line.reqId === reqId),
    ).toEqual([
      {
        level: 20,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId,
        expect: 'the-moon',
        msg: 'request refused: unmet Expect',
      },
    ]);
  });

  it('answers a refused Expect with the X-Request-Id the client sent, and logs it under that id', async () => {
    const response = await sendRaw(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: client-417-1\r\nExpect: the-moon\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    expect(response.status).toBe(417);
    expect(response.headers['x-request-id']).toBe('client-417-1');
    expect(
      logLines.filter(
        (line) => line.msg === 'request refused: unmet Expect' && line.reqId === 'client-417-1',
      ),
    ).toHaveLength(1);
  });

  it('answers an Expect that lists another expectation beside 100-continue with 417, and no 100 Continue', async () => {
    const raw = await receiveAll(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nExpect: 100-continue, the-moon\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}',
    );
    const statusLines = raw.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '));
    expect(statusLines).toEqual(['HTTP/1.1 417 Expectation Failed']);
    expect(JSON.parse(parse(raw).body).code).toBe('expectation_failed');
  });

  it('takes 100-CONTINUE as 100-continue: expectations compare without regard to case', async () => {
    const raw = await receiveAll(
      'GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-CONTINUE\r\nConnection: close\r\n\r\n',
    );
    const statusLines = raw.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '));
    expect(statusLines).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK']);
  });

  it('still answers Expect: 100-continue with 100 Continue, then the request as usual', async () => {
    const raw = await receiveAll(
      'GET /health/live HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n',
    );
    const statusLines = raw.split('\r\n').filter((line) => line.startsWith('HTTP/1.1 '));
    expect(statusLines).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 200 OK']);
  });
});

describe('CONNECT, which Node would answer by closing the connection without a word', () => {
  it('answers CONNECT with 400 bad_request, the Error body, its X-Request-Id and Connection: close', async () => {
    const response = await sendRaw(
      'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-Id: client-connect-1\r\n\r\n',
    );
    expect([response.status, JSON.parse(response.body)]).toEqual([
      400,
      {
        code: 'bad_request',
        message:
          'This server is not a proxy: it opens no tunnel (CONNECT). Send the request itself, with its path.',
        status: 400,
      },
    ]);
    expect(response.headers['x-request-id']).toBe('client-connect-1');
    expect(response.headers.connection).toBe('close');
  });

  it('answers a request pipelined before CONNECT first, then the refusal: the good one is not left unanswered', async () => {
    const { secret } = await service.issueKey({ plan: 'free' });
    const body = JSON.stringify({ name: 'Piped', categoryId: 1 });
    const raw = await receiveAll(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      { keepOpen: true },
    );
    const statusLines = raw.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+/g);
    expect(statusLines).toEqual(['HTTP/1.1 201 Created', 'HTTP/1.1 400 Bad Request']);
  });
});

describe('a request that does not arrive in time (REQUEST_TIMEOUT_SECONDS: 1)', () => {
  let slow: GuardedApp;
  let slowPort: number;
  /** The access log's lines, as parsed JSON. */
  const accessLines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        accessLines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        callback();
      },
    });
    slow = await startGuardedApp({
      clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
      env: { REQUEST_TIMEOUT_SECONDS: '1', ACCESS_LOG: 'true' },
      logger: pino({ level: 'info' }, stream),
    });
    await slow.app.listen({ port: 0, host: '127.0.0.1' });
    slowPort = (slow.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await slow.close();
  });

  /** Sends these bytes and keeps the socket open; what came back once the server closed, or after `waitMs`. */
  function sendAndWait(request: string, waitMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(slowPort, '127.0.0.1');
      let received = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(received);
      }, waitMs);
      socket.on('data', (data: Buffer) => (received += data.toString('utf8')));
      socket.on('error', reject);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.write(request);
    });
  }

  it('answers a body that stops short of its Content-Length with 408 request_timeout, not an open connection forever', async () => {
    const { secret } = await slow.issueKey({ plan: 'free' });
    const raw = await sendAndWait(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":`,
      3000,
    );
    const response = parse(raw);
    expect([response.status, JSON.parse(response.body)]).toEqual([
      408,
      { code: 'request_timeout', message: 'The request did not arrive in time.', status: 408 },
    ]);
    expect(response.headers.connection).toBe('close');
  });

  /** A POST whose body stops short of its Content-Length, under this X-Request-Id: its answer. */
  async function bodyStoppingShort(requestId: string): Promise<RawResponse> {
    const { secret } = await slow.issueKey({ plan: 'free' });
    return parse(
      await sendAndWait(
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${requestId}\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":`,
        3000,
      ),
    );
  }

  it('answers a body that stops short under the request’s own X-Request-Id, with its rate-limit headers', async () => {
    const response = await bodyStoppingShort('slow-body-1');
    expect([
      response.status,
      response.headers['x-request-id'],
      response.headers['x-ratelimit-limit'],
    ]).toEqual([408, 'slow-body-1', '60']);
  });

  it('logs a body that stops short in the access log as answered 408, under the id the client was given', async () => {
    await bodyStoppingShort('slow-body-2');
    const line = accessLines.find((entry) => entry.reqId === 'slow-body-2' && entry.msg === 'request');
    expect([line?.status, line?.closedEarly]).toEqual([408, undefined]);
  });

  it('answers a request once when its body stops short after its answer: the connection closes without a second, 408', async () => {
    const { secret } = await slow.issueKey({ plan: 'free' });
    const raw = await sendAndWait(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${secret}\r\nContent-Length: 30\r\n\r\n{"name":`,
      3000,
    );
    expect(raw.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+/g)).toEqual(['HTTP/1.1 200 OK']);
  });

  it('closes a connection that sends nothing at all, which Node’s headers timeout leaves open for ever', async () => {
    const socket = connect(slowPort, '127.0.0.1');
    socket.on('error', () => {});
    const closed = new Promise<string>((resolve) => socket.on('close', () => resolve('closed')));
    const open = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 10_000));
    expect(await Promise.race([closed, open])).toBe('closed');
    socket.destroy();
  });
});

describe('a request pipelined behind a slow answer, whose body does not arrive in time', () => {
  const temp = makeTempDir();
  const underlying = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
  // While held, the read models see no new event: a read with X-Min-Position waits (up to 2 s).
  const switchable = holdableStore(underlying);
  let held: Service;
  let heldApp: FastifyInstance;
  let heldPort: number;

  beforeAll(async () => {
    const config = loadConfig({
      PETSTORE_DATA_DIR: temp.dir,
      LOG_LEVEL: 'silent',
      REQUEST_TIMEOUT_SECONDS: '1',
      MIN_POSITION_WAIT_MS: '2000',
    });
    const logger = pino({ level: 'silent' });
    held = await startService(config, logger, { store: switchable.store });
    heldApp = await buildApp({ config, application: held.application, guard: openGuard, logger });
    await heldApp.listen({ port: 0, host: '127.0.0.1' });
    heldPort = (heldApp.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    switchable.release();
    await heldApp.close();
    await held.stop();
    await underlying.close();
    temp.remove();
  });

  it('answers it 408 under its own X-Request-Id, once the answer before it has gone', async () => {
    switchable.hold();
    const created = await heldApp.inject({
      method: 'POST',
      url: '/v1/pets',
      headers: { 'content-type': 'application/json' },
      payload: { name: 'Rex', categoryId: 1 },
    });
    const position = created.headers['x-store-position'] as string;
    const raw = await receiveAll(
      `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Min-Position: ${position}\r\n\r\n` +
        `POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: pipelined-slow-body\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":`,
      { keepOpen: true, to: heldPort },
    );
    const second = parse(raw.slice(raw.indexOf('HTTP/1.1', 1)));
    expect([second.status, second.headers['x-request-id']]).toEqual([408, 'pipelined-slow-body']);
  });
});

describe('a request whose body does not arrive in time while the guard is still deciding (REQUEST_TIMEOUT_SECONDS: 1)', () => {
  let deciding: GuardedApp;
  let decidingPort: number;

  /** Rate-limit counters that take 1.5 s to answer, as a Redis that has stopped answering may. */
  function slowCounters(): CounterStore {
    const counters = asynchronousCounters();
    const later = <T>(value: T | Promise<T>) =>
      new Promise<T>((resolve) => setTimeout(() => resolve(value), 1500));
    return {
      counter(name, windowMs) {
        const counter = counters.counter(name, windowMs);
        return {
          consume: (...args) => later(counter.consume(...args)),
          refund: (...args) => later(counter.refund(...args)),
        };
      },
    };
  }

  beforeAll(async () => {
    deciding = await startGuardedApp({
      clock: controlledClock(Date.UTC(2030, 0, 15, 10, 0, 5)),
      env: { REQUEST_TIMEOUT_SECONDS: '1' },
      counters: slowCounters(),
    });
    await deciding.app.listen({ port: 0, host: '127.0.0.1' });
    decidingPort = (deciding.app.server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await deciding.close();
  });

  it('answers it with the guard’s 401 alone when the guard refuses it', async () => {
    const raw = await receiveAll(
      'POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer psk_unknown\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":',
      { keepOpen: true, to: decidingPort },
    );
    expect(raw.match(/HTTP\/1\.1 \d{3} [A-Za-z ]+/g)).toEqual(['HTTP/1.1 401 Unauthorized']);
  });

  it('answers it by its route, under its own X-Request-Id, once the guard has decided', async () => {
    const { secret } = await deciding.issueKey({ plan: 'free' });
    const raw = await receiveAll(
      `POST /v1/pets HTTP/1.1\r\nHost: x\r\nX-Request-Id: slow-guard-body\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n{"name":`,
      { keepOpen: true, to: decidingPort },
    );
    const response = parse(raw);
    expect([
      response.status,
      response.headers['x-request-id'],
      response.headers['x-ratelimit-limit'],
    ]).toEqual([408, 'slow-guard-body', '60']);
  });
});
