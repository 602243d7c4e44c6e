import { randomUUID } from 'node:crypto';
import type { IssueApiKey } from '../../src/domain/api-keys.ts';
import { issueApiKey } from '../../src/application/commands/api-keys.ts';
import { apiKeyGuard, type ApiKeyGuardDependencies } from '../../src/http/guard.ts';
import { type Clock, systemClock } from '../../src/shared/context.ts';
import { startTestApp, type TestApp } from './app.ts';

export type ListeningApp = {
  readonly testApp: TestApp;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  /**
   * Issues an enterprise key with these scopes (and name, and limits: none that a test reaches by
   * default) and waits until the guard knows it.
   */
  issueKey(
    scopes: readonly string[],
    name?: string,
    limits?: { readonly perMinute: number; readonly perDay: number },
  ): Promise<{ authorization: string; keyId: string }>;
  close(): Promise<void>;
};

/** The real service behind the real guard, listening on a loopback port: for streams and fetch. */
export async function startListeningApp(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    /** Told of every rate-limit decision, as the metrics are. */
    onDecision?: ApiKeyGuardDependencies['onDecision'];
  } = {},
): Promise<ListeningApp> {
  const clock = options.clock ?? systemClock;
  const testApp = await startTestApp({
    ...(options.env && { env: options.env }),
    clock,
    guard: (service) =>
      apiKeyGuard({ ...service.auth, ...(options.onDecision && { onDecision: options.onDecision }) }),
  });
  await testApp.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = testApp.app.server.address() as { port: number };
  return {
    testApp,
    origin: `http://127.0.0.1:${port}`,
    async issueKey(scopes, name = 'tester', limits = { perMinute: 1_000_000, perDay: 1_000_000 }) {
      const command: IssueApiKey = { name, plan: 'enterprise', ...limits, scopes };
      const deps = { store: testApp.store, clock };
      const { key, secret, position } = await issueApiKey(deps, command, { correlationId: randomUUID() });
      await testApp.service.auth.keys.waitFor(position);
      return { authorization: `Bearer ${secret}`, keyId: key.keyId };
    },
    close: () => testApp.close(),
  };
}
