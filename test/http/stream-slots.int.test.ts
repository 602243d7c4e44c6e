import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { buildApp } from '../../src/http/app.ts';
import { apiKeyGuard } from '../../src/http/guard.ts';
import { issueApiKey } from '../../src/application/commands/api-keys.ts';
import { systemClock } from '../../src/shared/context.ts';
import { type Service, startService } from '../../src/service.ts';
import { holdableStore } from '../support/holdable-store.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * What a stream holds (its slot of STREAMS_PER_KEY, 1 here; its access and stall watches) is given
 * back when its response closes. A request that waits before its handler (X-Min-Position, with the
 * read models held behind the store) may lose its client meanwhile: its response has closed before
 * the stream starts.
 */

const temp = makeTempDir();
const underlying = openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') });
const switchable = holdableStore(underlying);
let service: Service;
let app: FastifyInstance;
let origin: string;
let authorization: string;

beforeAll(async () => {
  const config = loadConfig({ PETSTORE_DATA_DIR: temp.dir, LOG_LEVEL: 'silent', STREAMS_PER_KEY: '1' });
  const logger = pino({ level: 'silent' });
  service = await startService(config, logger, { store: switchable.store });
  app = await buildApp({
    config,
    application: service.application,
    guard: apiKeyGuard(service.auth),
    logger,
  });
  origin = await app.listen({ port: 0, host: '127.0.0.1' });
  const command = {
    name: 'auditor',
    plan: 'enterprise',
    perMinute: 1000,
    perDay: 1000,
    scopes: ['audit:read'],
  };
  const issued = await issueApiKey({ store: underlying, clock: systemClock }, command, {
    correlationId: randomUUID(),
  });
  await service.auth.keys.waitFor(issued.position);
  authorization = `Bearer ${issued.secret}`;
});
afterAll(async () => {
  await app.close();
  await service.stop();
  await underlying.close();
  temp.remove();
});

afterEach(() => vi.restoreAllMocks());

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends a request for the feed's stream that waits for `position`, and leaves before it is answered. */
async function leaveWhileWaiting(position: string): Promise<void> {
  const socket = connect(Number(new URL(origin).port), '127.0.0.1');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(
    'GET /v1/audit/events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n' +
      `Authorization: ${authorization}\r\n` +
      `X-Min-Position: ${position}\r\n\r\n`,
  );
  await pause(100);
  const closed = new Promise((resolve) => socket.once('close', resolve));
  socket.destroy();
  await closed;
}

/** A pet written straight to the store, as another process would: the read models do not have it yet. */
async function positionBehindTheReadModels(id: number): Promise<string> {
  const { position } = await underlying.appendToStream(`pet-${id}`, [
    {
      type: 'PetCreated',
      data: { id, name: 'Behind', categoryId: 1 },
      metadata: {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        correlationId: 'other',
        schemaVersion: 2,
      },
    },
  ]);
  return String(position);
}

/** The intervals set from now on and not cleared yet (a stream's access watch and stall watch are such). */
function intervalsLeft(): () => number {
  const left = new Set<unknown>();
  const { setInterval: set, clearInterval: clear } = globalThis;
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof set>) => {
    const interval = set(...args);
    left.add(interval);
    return interval;
  }) as typeof set);
  vi.spyOn(globalThis, 'clearInterval').mockImplementation((interval) => {
    left.delete(interval);
    clear(interval);
  });
  return () => left.size;
}

describe('a stream whose client left while its request waited for X-Min-Position', () => {
  it('takes no stream slot', async () => {
    switchable.hold();
    await leaveWhileWaiting(await positionBehindTheReadModels(900_001));
    await pause(100);
    switchable.release();
    await pause(300);
    const abort = new AbortController();
    const next = await fetch(`${origin}/v1/audit/events`, {
      headers: { authorization, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    abort.abort();
    expect(next.status).toBe(200);
  });

  it('leaves no timer of its own running', async () => {
    switchable.hold();
    const position = await positionBehindTheReadModels(900_002);
    const left = intervalsLeft();
    await leaveWhileWaiting(position);
    switchable.release();
    await pause(300);
    expect(left()).toBe(0);
  });
});
