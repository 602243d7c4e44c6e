import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FEED_SCAN_LIMIT } from '../../../src/application/queries/event-feed.ts';
import { type ListeningApp, startListeningApp } from '../../support/listening-app.ts';
import { openApiDocument, resolveRef } from '../../support/openapi.ts';
import { readSse } from '../../support/sse.ts';

let server: ListeningApp;
let auditor: { authorization: string; keyId: string };
let writer: { authorization: string; keyId: string };

beforeAll(async () => {
  server = await startListeningApp();
  auditor = await server.issueKey(['audit:read'], 'auditor');
  writer = await server.issueKey(['pets:read', 'pets:write'], 'writer');
});
afterAll(() => server.close());

type AuditEvent = { position: string; stream: string; type: string; data: Record<string, unknown> };

async function createPet(
  name = `Pet ${randomUUID().slice(0, 8)}`,
): Promise<{ id: number; requestId: string }> {
  const requestId = `req-${randomUUID()}`;
  const response = await fetch(`${server.origin}/v1/pets`, {
    method: 'POST',
    headers: { ...auth(writer), 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ name, categoryId: 3, status: 'available' }),
  });
  expect(response.status).toBe(201);
  return { id: ((await response.json()) as { id: number }).id, requestId };
}

const auth = (key: { authorization: string }) => ({ authorization: key.authorization });

async function page(query: string, key = auditor) {
  const response = await fetch(`${server.origin}/v1/audit/events${query}`, { headers: auth(key) });
  return {
    status: response.status,
    link: response.headers.get('link'),
    body: (await response.json()) as unknown,
  };
}

/** Every event, page after page by following the Link headers from `query`. */
async function everyPage(query: string): Promise<{ events: AuditEvent[]; pages: number }> {
  const events: AuditEvent[] = [];
  let next: string | null = `/v1/audit/events${query}`;
  let pages = 0;
  while (next !== null) {
    const response: Response = await fetch(`${server.origin}${next}`, { headers: auth(auditor) });
    expect(response.status).toBe(200);
    events.push(...((await response.json()) as AuditEvent[]));
    next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1] ?? null;
    pages += 1;
  }
  return { events, pages };
}

describe('GET /v1/audit/events', () => {
  it('shows each event with its position, stream, revision, type, time, actor, request id and data', async () => {
    const { id, requestId } = await createPet('Rex');
    const [created] = await server.testApp.store.readStream(`pet-${id}`);
    const { body } = await page(`?after=${created!.position - 1n}&limit=1`);
    expect(body).toEqual([
      {
        position: String(created!.position),
        stream: `pet-${id}`,
        revision: 0,
        type: 'PetCreated',
        time: created!.metadata.occurredAt,
        actor: { keyId: writer.keyId, name: 'writer' },
        requestId,
        data: { id, name: 'Rex', categoryId: 3, status: 'available' },
      },
    ]);
  });

  it('pages through every event of the store in store order, each once, by its Link headers', async () => {
    for (let i = 0; i < 5; i++) await createPet();
    const { events, pages } = await everyPage('?limit=3');
    const stored: bigint[] = [];
    for await (const event of server.testApp.store.readAll()) stored.push(event.position);
    expect(events.map((event) => event.position)).toEqual(stored.map(String));
    expect(pages).toBe(Math.ceil(stored.length / 3));
  });

  it('filters by type and by stream, keeping the filters in the Link', async () => {
    const { id } = await createPet();
    await fetch(`${server.origin}/v1/pets/${id}`, {
      method: 'PATCH',
      headers: { ...auth(writer), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Renamed', status: 'sold' }),
    });
    const byStream = await page(`?stream=pet-${id}&limit=2`);
    expect((byStream.body as AuditEvent[]).map((event) => event.type)).toEqual(['PetCreated', 'PetRenamed']);
    expect(byStream.link).toBe(
      `</v1/audit/events?limit=2&stream=pet-${id}&after=${(byStream.body as AuditEvent[])[1]!.position}>; rel="next"`,
    );
    const renames = await everyPage('?type=PetRenamed');
    expect(renames.events.map((event) => [event.type, event.data.name])).toContainEqual([
      'PetRenamed',
      'Renamed',
    ]);
    expect(new Set(renames.events.map((event) => event.type))).toEqual(new Set(['PetRenamed']));
  });

  it('never shows secret material: an issued key’s event has no secretHash', async () => {
    const { events } = await everyPage('?type=ApiKeyIssued');
    const issued = events.find((event) => event.stream === `apikey-${auditor.keyId}`);
    expect(issued?.data).toMatchObject({ keyId: auditor.keyId, name: 'auditor' });
    expect(JSON.stringify(events)).not.toContain('secretHash');
  });

  it('takes the list limits: 1 to 100, 20 by default', async () => {
    for (let i = 0; i < 21; i++) await createPet();
    expect(((await page('')).body as unknown[]).length).toBe(20);
    for (const limit of ['0', '101', 'ten']) {
      expect(await page(`?limit=${limit}`)).toMatchObject({
        status: 400,
        body: { code: 'validation_failed' },
      });
    }
    expect(await page('?after=yesterday')).toMatchObject({
      status: 400,
      body: { code: 'validation_failed', message: 'after must be a store position: decimal digits.' },
    });
  });

  it('names the limit, not after, when both are wrong, as GraphQL auditEvents(first, after) does', async () => {
    expect(await page('?limit=0&after=abc')).toEqual({
      status: 400,
      link: null,
      body: { code: 'validation_failed', message: 'limit must be an integer from 1 to 100.', status: 400 },
    });
  });

  it('resumes a page after Last-Event-ID too, and refuses one that is not a position', async () => {
    const { id } = await createPet();
    const [created] = await server.testApp.store.readStream(`pet-${id}`);
    const headers = { ...auth(auditor), 'last-event-id': String(created!.position - 1n) };
    const response = await fetch(`${server.origin}/v1/audit/events?limit=1&after=0`, { headers });
    expect(((await response.json()) as AuditEvent[]).map((event) => event.position)).toEqual([
      String(created!.position),
    ]);
    const refused = await fetch(`${server.origin}/v1/audit/events`, {
      headers: { ...auth(auditor), 'last-event-id': 'abc' },
    });
    expect([refused.status, await refused.json()]).toEqual([
      400,
      {
        code: 'validation_failed',
        message: 'Last-Event-ID must be a store position: decimal digits.',
        status: 400,
      },
    ]);
  });

  it('refuses an after that is not a position even beside a Last-Event-ID, which wins only over a good one', async () => {
    const refused = await fetch(`${server.origin}/v1/audit/events?limit=1&after=abc`, {
      headers: { ...auth(auditor), 'last-event-id': '1' },
    });
    expect([refused.status, await refused.json()]).toEqual([
      400,
      { code: 'validation_failed', message: 'after must be a store position: decimal digits.', status: 400 },
    ]);
  });

  it.each([
    [
      'refuses the stream with q=0',
      'application/json, text/event-stream;q=0',
      'application/json; charset=utf-8',
    ],
    [
      'ranks JSON as high, and lists it first',
      'application/json, text/event-stream',
      'application/json; charset=utf-8',
    ],
    [
      'ranks the stream higher',
      'application/json;q=0.5, text/event-stream',
      'text/event-stream; charset=utf-8',
    ],
    [
      'names the stream in capitals (media types are case-insensitive)',
      'Text/Event-Stream',
      'text/event-stream; charset=utf-8',
    ],
    [
      'names the stream with its charset',
      'text/event-stream;charset=utf-8',
      'text/event-stream; charset=utf-8',
    ],
    ['takes any text type, of which the stream is one', 'text/*', 'text/event-stream; charset=utf-8'],
  ])('answers an Accept that %s in the type it ranks first', async (_, accept, type) => {
    const abort = new AbortController();
    const response = await fetch(`${server.origin}/v1/audit/events?limit=1`, {
      headers: { ...auth(auditor), accept },
      signal: abort.signal,
    });
    const answered = [response.status, response.headers.get('content-type')];
    abort.abort();
    expect(answered).toEqual([200, type]);
  });

  it('refuses asOf with 400 naming it and saying where the feed starts, rather than answer every event', async () => {
    expect(await page('?asOf=2030-01-14T09:00:00Z')).toEqual({
      status: 400,
      link: null,
      body: {
        code: 'validation_failed',
        message:
          'Query parameter asOf cannot be set: the feed holds every event, to now, each with its time; after starts it past a position.',
        status: 400,
      },
    });
  });

  it('needs the audit:read scope', async () => {
    expect(await page('', writer)).toMatchObject({ status: 403, body: { code: 'insufficient_scope' } });
  });

  it.each([
    ['a page', 'application/json'],
    ['a stream', 'text/event-stream'],
  ])(
    'refuses, for %s, a Last-Event-ID past the store’s last event with 400, rather than wait for it',
    async (_, accept) => {
      await createPet();
      const head = (await server.testApp.store.headPosition())!;
      const response = await fetch(`${server.origin}/v1/audit/events`, {
        headers: { ...auth(auditor), accept, 'last-event-id': String(head + 1000n) },
      });
      const body = (await response.json()) as { message: string };
      expect([response.status, body]).toEqual([
        400,
        {
          code: 'validation_failed',
          message: expect.stringMatching(
            new RegExp(
              `^Last-Event-ID ${head + 1000n} is past the store's last event \\(\\d+\\): only send positions this service gave\\.$`,
            ),
          ),
          status: 400,
        },
      ]);
    },
  );
});

describe('GET /v1/audit/events as server-sent events', () => {
  it('streams new events live, each with its position as the event id', async () => {
    let created: { id: number } | undefined;
    const events = await readSse(`${server.origin}/v1/audit/events`, auth(auditor), 1, async () => {
      created = await createPet('Live');
    });
    const [stored] = await server.testApp.store.readStream(`pet-${created!.id}`);
    expect(events).toEqual([
      {
        id: String(stored!.position),
        data: expect.objectContaining({ type: 'PetCreated', stream: `pet-${created!.id}` }),
      },
    ]);
  });

  it('resumes after Last-Event-ID with no gap and no repeat, then goes on live', async () => {
    const first = await createPet();
    await createPet();
    const [firstEvent] = await server.testApp.store.readStream(`pet-${first.id}`);
    const url = `${server.origin}/v1/audit/events`;
    const before = await readSse(`${url}?after=${firstEvent!.position - 1n}`, auth(auditor), 2);
    const lastEventId = before[1]!.id!;
    await createPet(); // while disconnected
    await createPet();
    const resumed = await readSse(url, { ...auth(auditor), 'last-event-id': lastEventId }, 3, async () => {
      await createPet(); // once reconnected
    });
    const stored: string[] = [];
    for await (const event of server.testApp.store.readAll({ after: BigInt(lastEventId) })) {
      stored.push(String(event.position));
    }
    expect(resumed.map((event) => event.id)).toEqual(stored);
    expect(resumed.map((event) => (event.data as AuditEvent).position)).toEqual(stored);
  });

  it('answers with Cache-Control: no-store, which the OpenAPI document names for the stream', async () => {
    const abort = new AbortController();
    const response = await fetch(`${server.origin}/v1/audit/events`, {
      headers: { ...auth(auditor), accept: 'text/event-stream' },
      signal: abort.signal,
    });
    abort.abort();
    const documented = resolveRef(openApiDocument.paths['/audit/events'].get.responses['200'])
      .headers as Record<string, { schema?: unknown }>;
    expect([response.headers.get('cache-control'), documented['Cache-Control']?.schema]).toEqual([
      'no-store',
      { type: 'string', enum: ['no-store'] },
    ]);
  });

  it('ends open streams when the server closes, rather than keeping it open', async () => {
    const other = await startListeningApp();
    const key = await other.issueKey(['audit:read']);
    const response = await fetch(`${other.origin}/v1/audit/events`, {
      headers: { ...auth(key), accept: 'text/event-stream' },
    });
    const reader = response.body!.getReader();
    await reader.read(); // the stream is open
    const closed = other.testApp.app.close().then(() => 'closed');
    const timeout = new Promise((resolve) => setTimeout(resolve, 3000, 'still open after 3 s'));
    expect(await Promise.race([closed, timeout])).toBe('closed');
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    await other.close();
  });

  it('ends a stream that was still opening when the server started closing', async () => {
    const other = await startListeningApp();
    const key = await other.issueKey(['audit:read']);
    const store = other.testApp.store;
    const head = store.headPosition.bind(store);
    const asked = Promise.withResolvers<void>();
    const answer = Promise.withResolvers<void>();
    // The check of the stream's start (against the store's head) is answered once close has begun.
    store.headPosition = async () => {
      asked.resolve();
      await answer.promise;
      return head();
    };
    const response = fetch(`${other.origin}/v1/audit/events?after=1`, {
      headers: { ...auth(key), accept: 'text/event-stream' },
    });
    await asked.promise;
    const closed = other.testApp.app.close().then(() => 'closed');
    await expect.poll(() => other.testApp.app.server.listening).toBe(false); // past the preClose hooks
    answer.resolve();
    const timeout = new Promise((resolve) => setTimeout(resolve, 3000, 'still open after 3 s'));
    expect(await Promise.race([closed, timeout])).toBe('closed');
    expect((await response).status).toBe(200);
    await other.close();
  });
});

describe('a page of one stream', () => {
  const metadata = () => ({
    eventId: randomUUID(),
    occurredAt: new Date().toISOString(),
    correlationId: 'c',
    schemaVersion: 1,
  });
  const appendLongStream = async (stream: string, count: number, type = 'Noise') => {
    const events = Array.from({ length: count }, () => ({ type, data: {}, metadata: metadata() }));
    return server.testApp.store.appendToStream(stream, events);
  };

  it('reads the stream from where the page starts, not the whole stream', async () => {
    const stream = `long-${randomUUID()}`;
    await appendLongStream(stream, 2000);
    const events = await server.testApp.store.readStream(stream);
    const store = server.testApp.store;
    const readStream = store.readStream.bind(store);
    let read = 0;
    store.readStream = async (...args) => {
      const found = await readStream(...args);
      read += found.length;
      return found;
    };
    let answer;
    try {
      answer = await page(`?stream=${stream}&limit=2&after=${events[1500]!.position}`);
    } finally {
      store.readStream = readStream;
    }
    expect((answer.body as AuditEvent[]).map((event) => event.position)).toEqual([
      String(events[1501]!.position),
      String(events[1502]!.position),
    ]);
    expect(read).toBeLessThan(50);
  });

  it(`reads at most ${FEED_SCAN_LIMIT} events of it with a type filter, its Link going on from where it stopped`, async () => {
    const stream = `long-${randomUUID()}`;
    await appendLongStream(stream, FEED_SCAN_LIMIT + 5);
    const needle = await appendLongStream(stream, 1, 'Needle');
    const events = await server.testApp.store.readStream(stream, { maxCount: FEED_SCAN_LIMIT + 1 });
    const first = await page(`?stream=${stream}&type=Needle`);
    expect([first.body, first.link]).toEqual([
      [],
      `</v1/audit/events?type=Needle&stream=${stream}&after=${events.at(-1)!.position}>; rel="next"`,
    ]);
    const { events: found } = await everyPage(`?stream=${stream}&type=Needle`);
    expect(found.map((event) => event.position)).toEqual([String(needle.position)]);
  });
});

describe('a filtered page', () => {
  it(`reads at most ${FEED_SCAN_LIMIT} events: a page may end short, and its Link goes on from where it stopped`, async () => {
    const store = server.testApp.store;
    const metadata = () => ({
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'c',
      schemaVersion: 1,
    });
    const from = (await store.headPosition())!;
    await Promise.all(
      Array.from({ length: FEED_SCAN_LIMIT + 5 }, () =>
        store.appendToStream(`noise-${randomUUID()}`, [{ type: 'Noise', data: {}, metadata: metadata() }]),
      ),
    );
    const needle = await store.appendToStream('needle', [{ type: 'Needle', data: {}, metadata: metadata() }]);
    const first = await page(`?type=Needle&after=${from}`);
    expect(first.body).toEqual([]);
    expect(first.link).toBe(
      `</v1/audit/events?type=Needle&after=${from + BigInt(FEED_SCAN_LIMIT) + 1n}>; rel="next"`,
    );
    const { events } = await everyPage(`?type=Needle&after=${from}`);
    expect(events.map((event) => event.position)).toEqual([String(needle.position)]);
  });
});
