import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { systemClock } from '../shared/context.ts';
import { type ApiKey, isBanned } from '../domain/api-keys.ts';
import {
  changeApiKeyPlan,
  issueApiKey,
  revokeApiKey,
  unbanApiKey,
} from '../application/commands/api-keys.ts';
import { apiKeysProjection } from '../../projections/api-keys.ts';
import { KeyRegistry } from '../application/key-registry.ts';
import { apiKeyReadModel } from '../read-models/api-key-read-model.ts';
import { ProjectionGroup } from '../read-models/runner.ts';
import { loadConfig } from '../config.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import { openCliStore } from './store.ts';
import { UsageError } from './usage-error.ts';

const subcommands: Record<string, (store: EventStore, args: string[]) => Promise<void>> = {
  create,
  list,
  revoke: (store, args) => change(store, args, 'revoke'),
  plan: (store, args) => change(store, args, 'plan'),
  unban: (store, args) => change(store, args, 'unban'),
};

/**
 * `petstore keys …`: API-key management against the store PETSTORE_DATA_DIR or EVENT_STORE_URL names.
 * Usage and help live in the command table (commands.ts), which also reports failures.
 */
export async function run(args: string[]): Promise<void> {
  const [name, ...rest] = args;
  const subcommand = name === undefined ? undefined : subcommands[name];
  if (subcommand === undefined) throw new UsageError(`unknown subcommand ${JSON.stringify(name)}`);
  const config = loadConfig(process.env);
  // Only a new key may start a store; the others change or list keys that must already be there.
  const store = await openCliStore(config, `keys ${name}`, name === 'create' ? 'may-create' : 'must-exist');
  try {
    await subcommand(store, rest);
  } finally {
    await store.close();
  }
}

const LIMIT_OPTIONS = { 'per-minute': { type: 'string' }, 'per-day': { type: 'string' } } as const;
const deps = (store: EventStore) => ({ store, clock: systemClock });
const cliContext = () => ({ correlationId: randomUUID() });

async function create(store: EventStore, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { plan: { type: 'string' }, name: { type: 'string' }, ...LIMIT_OPTIONS },
  });
  if (values.plan === undefined) throw new UsageError('--plan is required');
  const { key, secret } = await issueApiKey(
    deps(store),
    { plan: values.plan, name: values.name, ...limitsOf(values) },
    cliContext(),
  );
  process.stderr.write(`Created ${describe(key)}. Keep the key now: it is not shown again.\n`);
  process.stdout.write(`${secret}\n`);
}

async function list(store: EventStore, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const keys = await currentKeys(store);
  const now = Date.now();
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify(
        keys.map(({ secretHash: _hidden, ...key }) => ({ ...key, status: status(key, now) })),
        null,
        2,
      )}\n`,
    );
    return;
  }
  const rows = [['ID', 'NAME', 'PLAN', 'PER MINUTE', 'PER DAY', 'ISSUED', 'STATUS']];
  for (const key of keys) {
    rows.push([
      key.keyId,
      key.name || '-',
      key.plan,
      String(key.limits.perMinute),
      String(key.limits.perDay),
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

async function change(store: EventStore, args: string[], what: 'revoke' | 'plan' | 'unban'): Promise<void> {
  const { values, positionals } = parseArgs({ args, options: LIMIT_OPTIONS, allowPositionals: true });
  const [keyId, plan, extra] = positionals;
  const expected = what === 'plan' ? 2 : 1;
  if (
    keyId === undefined ||
    (what === 'plan' && plan === undefined) ||
    positionals.length > expected ||
    extra !== undefined
  ) {
    throw new UsageError(`keys ${what} takes ${what === 'plan' ? 'a key id and a plan' : 'one key id'}`);
  }
  const result =
    what === 'revoke'
      ? await revokeApiKey(deps(store), keyId, cliContext())
      : what === 'unban'
        ? await unbanApiKey(deps(store), keyId, cliContext())
        : await changeApiKeyPlan(deps(store), keyId, { plan, ...limitsOf(values) }, cliContext());
  const verb = { revoke: 'Revoked', plan: 'Changed the plan of', unban: 'Lifted the ban on' }[what];
  process.stderr.write(
    result.changed ? `${verb} ${describe(result.key!)}.\n` : `Nothing to change: ${describe(result.key!)}.\n`,
  );
}

/** Every key as the store holds it now: the api-keys projection alone, folded once. */
async function currentKeys(store: EventStore): Promise<ApiKey[]> {
  const group = new ProjectionGroup({ store, logger: pino({ level: 'silent' }) });
  const readModel = group.add(apiKeysProjection);
  await group.start();
  await group.stop();
  return new KeyRegistry(apiKeyReadModel(readModel, (position) => group.waitFor(position))).list();
}

function limitsOf(values: { 'per-minute'?: string; 'per-day'?: string }): {
  perMinute?: number;
  perDay?: number;
} {
  return {
    ...(values['per-minute'] === undefined
      ? {}
      : { perMinute: integer(values['per-minute'], '--per-minute') }),
    ...(values['per-day'] === undefined ? {} : { perDay: integer(values['per-day'], '--per-day') }),
  };
}

function integer(text: string, option: string): number {
  if (!/^\d{1,16}$/.test(text)) throw new UsageError(`${option} must be a positive integer`);
  return Number(text);
}

function status(key: Pick<ApiKey, 'revoked' | 'bannedUntilMs'>, nowMs: number): string {
  if (key.revoked) return 'revoked';
  if (isBanned(key, nowMs)) return `banned until ${new Date(key.bannedUntilMs).toISOString()}`;
  return 'active';
}

function describe(key: ApiKey): string {
  const name = key.name ? ` "${key.name}"` : '';
  return `key ${key.keyId}${name}, plan ${key.plan} (${key.limits.perMinute}/minute, ${key.limits.perDay}/day)${key.revoked ? ', revoked' : ''}`;
}
