import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { Clock } from '../../src/shared/context.ts';
import type { IssueApiKey } from '../../src/domain/api-keys.ts';
import type { LightMyRequestResponse } from 'fastify';
import type { Auth } from '../../src/application/auth.ts';
import { issueApiKey, revokeApiKey } from '../../src/application/commands/api-keys.ts';
import type { CounterStore } from '../../src/application/ports/counters.ts';
import { LimiterWindowCounter } from '../../src/rate-limits/window-counter.ts';
import { apiKeyGuard } from '../../src/http/guard.ts';
import { startTestApp, type TestApp } from './app.ts';

/** A clock that stands still until a test moves it. */
export type ControlledClock = Clock & { set(ms: number): void; advance(ms: number): void };

export function controlledClock(startMs: number): ControlledClock {
  let currentMs = startMs;
  return {
    now: () => new Date(currentMs),
    nowMs: () => currentMs,
    set(ms) {
      currentMs = ms;
    },
    advance(ms) {
      currentMs += ms;
    },
  };
}

export type GuardedApp = TestApp & {
  readonly auth: Auth;
  /** A request with this key's secret as the bearer token, and a JSON body when one is given. */
  send(
    secret: string,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** Issues a key and waits until the guard knows it; resolves the secret and the key id. */
  issueKey(command: IssueApiKey): Promise<{ secret: string; keyId: string }>;
  revokeKey(keyId: string): Promise<void>;
};

/** The real service in process, behind the real guard, with a controlled clock. */
export async function startGuardedApp(options: {
  clock: ControlledClock;
  env?: Record<string, string>;
  /** Rate-limit counters other than the in-memory default (which answer without a promise). */
  counters?: CounterStore;
  logger?: Logger;
  backgroundAfter?: Promise<unknown>;
}): Promise<GuardedApp> {
  const { clock } = options;
  const testApp = await startTestApp({
    clock,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.counters === undefined ? {} : { counters: options.counters }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
    ...(options.backgroundAfter === undefined ? {} : { backgroundAfter: options.backgroundAfter }),
    guard: (service) => apiKeyGuard(service.auth),
  });
  const started = testApp.service.auth;
  const deps = { store: testApp.store, clock };
  return {
    ...testApp,
    auth: started,
    async issueKey(command) {
      const { key, secret, position } = await issueApiKey(deps, command, { correlationId: randomUUID() });
      await started.keys.waitFor(position);
      return { secret, keyId: key.keyId };
    },
    async revokeKey(keyId) {
      const change = await revokeApiKey(deps, keyId, { correlationId: randomUUID() });
      await started.keys.waitFor(change.position!);
    },
    send: (secret, method, url, body, headers = {}) =>
      testApp.app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${secret}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      }),
    close: () => testApp.close(),
  };
}

/**
 * Counters that answer through a promise, as Redis's do, without a Redis server: rate-limiter-flexible's
 * memory limiter behind the same adapter as its Redis one. The guard then takes its asynchronous path.
 */
export function asynchronousCounters(): CounterStore {
  return {
    counter: (name, windowMs) =>
      new LimiterWindowCounter(
        new RateLimiterMemory({
          keyPrefix: name,
          points: Number.MAX_SAFE_INTEGER,
          duration: windowMs / 1000,
        }),
        windowMs,
      ),
  };
}
