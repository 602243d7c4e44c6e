import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient } from '../../src/cli/admin-client.ts';

/** A server that accepts every connection and reads every request, but never answers one. */
let silent: Server;
let url: string;

beforeAll(async () => {
  silent = createServer(() => {}).listen(0, '127.0.0.1');
  await once(silent, 'listening');
  url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
});
afterAll(() => {
  silent.closeAllConnections();
  silent.close();
});

describe('petstore projections --url against a server that accepts the connection and never answers', () => {
  it('status fails with one line naming the wait, once the answer is overdue', async () => {
    const client = adminClient(url, 'psk_any', { answerWithinMs: 200 });
    await expect(client.status()).rejects.toThrow(
      `${url} did not answer within 0.2 s: is the server stopped or overloaded?`,
    );
  });

  it('rebuild fails the same way when the server never answers its start', async () => {
    const client = adminClient(url, 'psk_any', { answerWithinMs: 200 });
    await expect(client.rebuild('pet-list', () => {})).rejects.toThrow(`${url} did not answer within 0.2 s`);
  });
});

describe('petstore projections --url against a server that refuses for now', () => {
  it('status names when to retry, from the answer’s Retry-After', async () => {
    const limited = createServer((_request, response) => {
      const body = JSON.stringify({ code: 'rate_limited', message: 'Too many requests.', status: 429 });
      response
        .writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '17' })
        .end(body);
    }).listen(0, '127.0.0.1');
    await once(limited, 'listening');
    const at = `http://127.0.0.1:${(limited.address() as AddressInfo).port}`;
    try {
      await expect(adminClient(at, 'psk_any').status()).rejects.toThrow(
        `${at} answered 429 rate_limited: Too many requests. (retry after 17 s)`,
      );
    } finally {
      limited.close();
    }
  });
});
