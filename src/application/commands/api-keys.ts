import { type Clock, clockAt, type RequestContext } from '../../shared/context.ts';
import { newEventMetadata } from '../../shared/event-metadata.ts';
import { type EventStore, WrongExpectedRevisionError } from '../ports/event-store.ts';
import {
  type ApiKey,
  type ApiKeyEvent,
  apiKeyStreamName,
  type ChangeApiKeyPlan,
  decideBanApiKey,
  decideChangeApiKeyPlan,
  decideChangeApiKeyScopes,
  decideGrantDefaultScopes,
  decideIssueApiKey,
  decideRevokeApiKey,
  decideRotateApiKey,
  runningGraceEndMs,
  decideUnbanApiKey,
  evolveApiKey,
  type IssueApiKey,
} from '../../domain/api-keys.ts';
import { generateApiKey, hashApiKey } from '../api-key-secrets.ts';

/**
 * The API-key commands: read the key's stream, decide, append with the revision read, and
 * decide again if another process changed the key meanwhile. Used by the CLI and by the guard
 * (bans), possibly from several processes at once.
 */

export type KeyCommandDependencies = { readonly store: EventStore; readonly clock: Clock };

export type KeyChange = {
  /** The key after the command; undefined only when a ban named an unknown key. */
  readonly key: ApiKey | undefined;
  /** False when the command changed nothing (already revoked, already banned, same plan). */
  readonly changed: boolean;
  /** Store position of the last event written; wait for a read model to reach it. */
  readonly position: bigint | undefined;
};

/** Issues a key. The secret is returned here once and exists nowhere else. */
export async function issueApiKey(
  deps: KeyCommandDependencies,
  command: IssueApiKey,
  context: RequestContext,
): Promise<{ key: ApiKey; secret: string; position: bigint }> {
  const { keyId, secret } = generateApiKey();
  const now = deps.clock.now();
  const event = decideIssueApiKey(command, { keyId, secretHash: hashApiKey(secret) }, now);
  const result = await deps.store.appendToStream(
    apiKeyStreamName(keyId),
    [{ ...event, metadata: newEventMetadata(clockAt(now), context) }],
    { expectedRevision: 'no_stream' },
  );
  return { key: evolveApiKey(undefined, event)!, secret, position: result.position };
}

export function revokeApiKey(
  deps: KeyCommandDependencies,
  keyId: string,
  context: RequestContext,
): Promise<KeyChange> {
  return changeKey(deps, keyId, context, (state, now) => decideRevokeApiKey(state, keyId, now));
}

export function changeApiKeyPlan(
  deps: KeyCommandDependencies,
  keyId: string,
  command: ChangeApiKeyPlan,
  context: RequestContext,
): Promise<KeyChange> {
  return changeKey(deps, keyId, context, (state, now) => decideChangeApiKeyPlan(state, keyId, command, now));
}

export function banApiKey(
  deps: KeyCommandDependencies,
  keyId: string,
  ban: { readonly seconds: number; readonly reason: string; readonly notBeforeMs?: number },
  context: RequestContext,
): Promise<KeyChange> {
  return changeKey(deps, keyId, context, (state, now) => decideBanApiKey(state, keyId, ban, now));
}

export function unbanApiKey(
  deps: KeyCommandDependencies,
  keyId: string,
  context: RequestContext,
): Promise<KeyChange> {
  return changeKey(deps, keyId, context, (state, now) => decideUnbanApiKey(state, keyId, now));
}

export function changeApiKeyScopes(
  deps: KeyCommandDependencies,
  keyId: string,
  scopes: readonly unknown[],
  context: RequestContext,
): Promise<KeyChange> {
  return changeKey(deps, keyId, context, (state, now) => decideChangeApiKeyScopes(state, keyId, scopes, now));
}

/**
 * A new secret for the key, returned here once; the old secret keeps working for `graceMs`. The key
 * keeps its id, plan, scopes and rate-limit counters. Only the secret just replaced has a grace: one
 * an earlier rotation replaced stops now, and `endedGraceMs` says until when it had been promised.
 */
export async function rotateApiKey(
  deps: KeyCommandDependencies,
  keyId: string,
  graceMs: number,
  context: RequestContext,
): Promise<KeyChange & { readonly secret: string; readonly endedGraceMs: number | undefined }> {
  const { secret } = generateApiKey();
  const secretHash = hashApiKey(secret);
  let endedGraceMs: number | undefined;
  const change = await changeKey(deps, keyId, context, (state, now) => {
    endedGraceMs = runningGraceEndMs(state, now.getTime());
    return [decideRotateApiKey(state, keyId, secretHash, graceMs, now)];
  });
  return { ...change, secret, endedGraceMs };
}

/**
 * Gives every key issued before keys had scopes the default ones, each through an
 * ApiKeyScopesChanged of its own; resolves the position of the last event written, if any. Run at
 * start-up, by every process: one of them writes each event, the others find nothing to do.
 */
export async function grantDefaultScopes(
  deps: KeyCommandDependencies,
  keys: readonly ApiKey[],
  context: RequestContext,
): Promise<bigint | undefined> {
  let last: bigint | undefined;
  for (const key of keys.filter((candidate) => candidate.scopes === undefined && !candidate.revoked)) {
    const change = await changeKey(deps, key.keyId, context, (state, now) =>
      decideGrantDefaultScopes(state, key.keyId, now),
    );
    last = change.position ?? last;
  }
  return last;
}

async function changeKey(
  deps: KeyCommandDependencies,
  keyId: string,
  context: RequestContext,
  decide: (state: ApiKey | undefined, now: Date) => ApiKeyEvent[],
): Promise<KeyChange> {
  const stream = apiKeyStreamName(keyId);
  for (;;) {
    const recorded = await deps.store.readStream(stream);
    const state = recorded.reduce<ApiKey | undefined>(
      (key, event) => evolveApiKey(key, event as unknown as ApiKeyEvent),
      undefined,
    );
    const now = deps.clock.now();
    const events = decide(state, now);
    if (events.length === 0) return { key: state, changed: false, position: undefined };
    try {
      const result = await deps.store.appendToStream(
        stream,
        events.map((event) => ({ ...event, metadata: newEventMetadata(clockAt(now), context) })),
        { expectedRevision: recorded.at(-1)?.revision ?? 'no_stream' },
      );
      return { key: events.reduce(evolveApiKey, state), changed: true, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }
}
