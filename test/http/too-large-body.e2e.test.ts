import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LARGE_BODY_CLIENTS, outcomes } from '../support/large-body.ts';
import { createApiKey, type ServerProcess, startServerProcess } from '../support/server-process.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A body over the limit, sent by real clients over real sockets to a real server process: every
 * client reads the 413 and its Error body, whether the body was buffered or streamed, every time.
 */

const MB = 1024 * 1024;
const TIMES = 20;
const TOO_LARGE = JSON.stringify({
  code: 'payload_too_large',
  message: 'The request body is larger than this server accepts.',
  status: 413,
});

const MISSING_KEY = JSON.stringify({
  code: 'missing_api_key',
  message: 'Send an API key as Authorization: Bearer <key>.',
  status: 401,
});

let temp: ReturnType<typeof makeTempDir>;
let server: ServerProcess;
let headers: Record<string, string>;

beforeAll(async () => {
  temp = makeTempDir();
  const env = { PETSTORE_DATA_DIR: temp.dir };
  headers = { 'content-type': 'application/json', authorization: `Bearer ${createApiKey(env)}` };
  server = await startServerProcess(env);
});
afterAll(async () => {
  await server?.kill();
  temp?.remove();
});

describe.each(LARGE_BODY_CLIENTS)('%s', (_name, client) => {
  it.each([5, 50])(
    `receives the 413 Error body for a %i MB body, ${TIMES} times out of ${TIMES}`,
    async (mb) => {
      const seen = await outcomes(TIMES, () => client(`${server.url}/v1/pets`, headers, mb * MB));
      expect(seen).toEqual(Array.from({ length: TIMES }, () => `413 ${TOO_LARGE}`));
    },
  );
});

it('answers a 50 MB body sent without a key with its 401, which the client reads', async () => {
  const [, streamed] = LARGE_BODY_CLIENTS[1]!;
  const withoutKey = { 'content-type': 'application/json' };
  // 20 requests: the most an address without a key may send in a minute.
  const seen = await outcomes(TIMES, () => streamed(`${server.url}/v1/pets`, withoutKey, 50 * MB));
  expect(seen).toEqual(Array.from({ length: TIMES }, () => `401 ${MISSING_KEY}`));
});
