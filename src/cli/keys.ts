import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { systemClock } from '../shared/context.ts';
import { type ApiKey, validateIssueApiKey } from '../domain/api-keys.ts';
import {
  changeApiKeyPlan,
  changeApiKeyScopes,
  issueApiKey,
  revokeApiKey,
  rotateApiKey,
  unbanApiKey,
} from '../application/commands/api-keys.ts';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import { KeyRegistry } from '../application/key-registry.ts';
import { apiKeyReadModel } from '../read-models/api-key-read-model.ts';
import { ProjectionGroup } from '../read-models/runner.ts';
import { loadConfig } from '../config.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import { ValidationError } from '../shared/errors.ts';
import { parseCommandLine } from './command-line.ts';
import { describe, durationOf, expiryOf, LIMIT_OPTIONS, limitsOf, scopesOf, status } from './key-options.ts';
import { failureReason } from './failure-reason.ts';
import { writeOrReject } from './output.ts';
import { openCliStore } from './store.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

/**
 * The domain names a plan's custom limits by their fields (`The enterprise plan needs perMinute.`);
 * on the command line they are the flags that set them, which is what the operator must type.
 */
function inFlagTerms(error: unknown): never {
  if (!(error instanceof ValidationError)) throw error;
  const flags = error.message.replace(/\bperMinute\b/g, '--per-minute').replace(/\bperDay\b/g, '--per-day');
  throw flags === error.message ? error : new ValidationError(flags, error.field);
}

/** Each subcommand reads its arguments first, so that a mistake in them opens (or starts) no store. */
type Subcommand = (args: string[]) => (store: EventStore) => Promise<void>;

const subcommands: Record<string, Subcommand> = {
  create,
  list,
  revoke: (args) => change(args, 'revoke'),
  plan: (args) => change(args, 'plan'),
  unban: (args) => change(args, 'unban'),
  scopes: (args) => change(args, 'scopes'),
  rotate,
};

/**
 * `petstore keys …`: API-key management against the store PETSTORE_DATA_DIR or EVENT_STORE_URL names.
 * Usage and help live in the command table (commands.ts), which also reports failures.
 */
export async function run(args: string[]): Promise<void> {
  const [name, ...rest] = args;
  const subcommand = name === undefined ? undefined : subcommands[name];
  if (subcommand === undefined) throw new UsageError(`unknown subcommand ${JSON.stringify(name)}`);
  const action = subcommand(rest);
  const config = loadConfig(process.env);
  // Only a new key may start a store; the others change or list keys that must already be there.
  const store = await openCliStore(config, `keys ${name}`, name === 'create' ? 'may-create' : 'must-exist');
  try {
    await action(store);
  } finally {
    await store.close();
  }
}

const deps = (store: EventStore) => ({ store, clock: systemClock });
const cliContext = () => ({ correlationId: randomUUID() });

function create(args: string[]) {
  const { values } = parseCommandLine({
    args,
    options: {
      plan: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      ...LIMIT_OPTIONS,
    },
  });
  if (values.plan === undefined) throw new UsageError('--plan is required');
  const expiresAt = expiryOf(values, systemClock.now());
  const request = {
    plan: values.plan,
    name: values.name,
    ...limitsOf(values),
    ...(values.scopes !== undefined && { scopes: scopesOf(values.scopes) }),
    ...(expiresAt !== undefined && { expiresAt }),
  };
  // Judged before the store is opened: a refused key must not leave a new store behind.
  try {
    validateIssueApiKey(request, systemClock.now());
  } catch (error) {
    inFlagTerms(error);
  }
  return async (store: EventStore) => {
    const { key, secret } = await issueApiKey(deps(store), request, cliContext()).catch(inFlagTerms);
    try {
      await writeOrReject(`${secret}\n`);
    } catch (error) {
      throw await revokeUnseen(store, key.keyId, error);
    }
    process.stderr.write(`Created ${describe(key)}. Keep the key now: it is not shown again.\n`);
  };
}

/**
 * A key whose secret never reached stdout works for nobody but whoever finds it: revoked at once,
 * or, if that fails too, left for the operator to revoke with the command given.
 */
async function revokeUnseen(store: EventStore, keyId: string, writeError: unknown): Promise<CommandFailure> {
  const lost = `key ${keyId} was stored but its secret could not be written to stdout (${failureReason(writeError)})`;
  try {
    await revokeApiKey(deps(store), keyId, cliContext());
  } catch (error) {
    return new CommandFailure(
      `${lost}, and revoking it failed (${failureReason(error)}): run petstore keys revoke ${keyId}`,
    );
  }
  return new CommandFailure(`${lost}: it has been revoked`);
}

function list(args: string[]) {
  const { values } = parseCommandLine({ args, options: { json: { type: 'boolean' } } });
  return (store: EventStore) => printKeys(store, values.json === true);
}

async function printKeys(store: EventStore, json: boolean): Promise<void> {
  const keys = await currentKeys(store);
  const now = Date.now();
  if (json) {
    process.stdout.write(
      `${JSON.stringify(
        keys.map((key) => ({
          keyId: key.keyId,
          name: key.name,
          plan: key.plan,
          limits: key.limits,
          scopes: key.scopes ?? null,
          issuedAt: key.issuedAt,
          expiresAt: isoOrNull(key.expiresAtMs),
          revoked: key.revoked,
          bannedUntil: isoOrNull(key.bannedUntilMs),
          previousSecretValidUntil: isoOrNull(key.previousSecretValidUntilMs),
          status: status(key, now),
        })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  const rows = [['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'SCOPES', 'ISSUED', 'STATUS']];
  for (const key of keys) {
    rows.push([
      key.keyId,
      key.name || '-',
      key.plan,
      String(key.limits.perMinute),
      String(key.limits.perDay),
      // A key issued before keys had scopes gets the default ones at the next start, unless revoked.
      key.scopes?.join(',') ?? (key.revoked ? '-' : '(default, given at the next start)'),
      key.issuedAt,
      status(key, now),
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    process.stdout.write(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

type Change = 'revoke' | 'plan' | 'scopes' | 'unban';
const SECOND_ARGUMENT: Partial<Record<Change, string>> = { plan: 'a plan', scopes: 'a list of scopes' };

function change(args: string[], what: Change) {
  const { values, positionals } = parseCommandLine({ args, options: LIMIT_OPTIONS, allowPositionals: true });
  const [keyId, second, extra] = positionals;
  const needsSecond = SECOND_ARGUMENT[what] !== undefined;
  if (
    keyId === undefined ||
    (needsSecond && second === undefined) ||
    (!needsSecond && second !== undefined) ||
    extra !== undefined
  ) {
    throw new UsageError(
      `keys ${what} takes one key id${needsSecond ? ` and ${SECOND_ARGUMENT[what]}` : ''}`,
    );
  }
  refuseEmptyKeyId(keyId);
  const limits = limitsOf(values);
  return async (store: EventStore) => {
    const result =
      what === 'revoke'
        ? await revokeApiKey(deps(store), keyId, cliContext())
        : what === 'unban'
          ? await unbanApiKey(deps(store), keyId, cliContext())
          : what === 'scopes'
            ? await changeApiKeyScopes(deps(store), keyId, scopesOf(second!), cliContext())
            : await changeApiKeyPlan(deps(store), keyId, { plan: second, ...limits }, cliContext()).catch(
                inFlagTerms,
              );
    const verb = {
      revoke: 'Revoked',
      plan: 'Changed the plan of',
      scopes: 'Changed the scopes of',
      unban: 'Lifted the ban on',
    }[what];
    process.stderr.write(
      result.changed
        ? `${verb} ${describe(result.key!)}.\n`
        : `Nothing to change: ${describe(result.key!)}.\n`,
    );
  };
}

/** `keys revoke "$ID"` with ID unset is a mistake in the command line, as a blank flag is, not an unknown key. */
function refuseEmptyKeyId(keyId: string): void {
  if (keyId.trim() === '')
    throw new UsageError('the key id is empty: give one (petstore keys list shows them)');
}

function rotate(args: string[]) {
  const { values, positionals } = parseCommandLine({
    args,
    options: { grace: { type: 'string' } },
    allowPositionals: true,
  });
  const [keyId, extra] = positionals;
  if (keyId === undefined || extra !== undefined) throw new UsageError('keys rotate takes one key id');
  refuseEmptyKeyId(keyId);
  const graceMs = values.grace === undefined ? DEFAULT_GRACE_MS : durationOf(values.grace, '--grace');
  return async (store: EventStore) => {
    const { key, secret, endedGraceMs } = await rotateApiKey(deps(store), keyId, graceMs, cliContext());
    const until = new Date(key!.previousSecretValidUntilMs).toISOString();
    // Only one old secret works at a time: an operator who promised clients the earlier one must hear it.
    const ended =
      endedGraceMs === undefined
        ? ''
        : ` The key an earlier rotation replaced, due to work until ${new Date(endedGraceMs).toISOString()}, stopped working now: only the last old key keeps a grace.`;
    try {
      await writeOrReject(`${secret}\n`);
    } catch (error) {
      throw new CommandFailure(
        `key ${keyId} was rotated but its new secret could not be written to stdout (${failureReason(error)}): the old key works until ${until}; petstore keys rotate ${keyId} gives another (and ends the old key at once)`,
      );
    }
    process.stderr.write(
      `Rotated ${describe(key!)}. The old key works until ${until}.${ended} Keep the new key now: it is not shown again.\n`,
    );
  };
}

const DEFAULT_GRACE_MS = 3_600_000;

/** Unix milliseconds as an RFC 3339 time; 0 (never) as null. */
function isoOrNull(ms: number): string | null {
  return ms === 0 ? null : new Date(ms).toISOString();
}

/** Every key as the store holds it now: the api-keys projection alone, folded once. */
async function currentKeys(store: EventStore): Promise<ApiKey[]> {
  const group = new ProjectionGroup({ store, logger: pino({ level: 'silent' }) });
  const readModel = group.add(apiKeysProjection);
  await group.start();
  await group.stop();
  return new KeyRegistry(apiKeyReadModel(readModel, (position) => group.waitFor(position))).list();
}
