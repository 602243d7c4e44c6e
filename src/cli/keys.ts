import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
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
import { isAppError } from '../shared/errors.ts';
import { openEventStore } from '../eventstore/index.ts';
import type { EventStore } from '../application/ports/event-store.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `Usage:
  petstore keys create --plan <free|pro|business|enterprise> [--name <name>] [--per-minute N --per-day N]
  petstore keys list [--json]
  petstore keys revoke <key-id>
  petstore keys plan <key-id> <plan> [--per-minute N --per-day N]
  petstore keys unban <key-id>

create prints the new key alone on stdout; it is stored only as a hash and never shown again.
--per-minute and --per-day are required for, and only allowed with, the enterprise plan.`;

const subcommands: Record<string, (store: EventStore, args: string[]) => Promise<void>> = {
  create,
  list,
  revoke: (store, args) => change(store, args, 'revoke'),
  plan: (store, args) => change(store, args, 'plan'),
  unban: (store, args) => change(store, args, 'unban'),
};

/** `petstore keys …`: API-key management against the store PETSTORE_DATA_DIR or EVENT_STORE_URL names. */
export async function run(args: string[]): Promise<void> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const subcommand = subcommands[name];
  if (subcommand === undefined) throw new UsageError(`unknown subcommand ${JSON.stringify(name)}\n${USAGE}`);
  const config = loadConfig(process.env);
  if (config.eventStoreUrl === undefined) mkdirSync(config.dataDir, { recursive: true });
  const store = await openEventStore(config);
  try {
    await subcommand(store, rest);
  } catch (error) {
    if (isAppError(error)) throw new UsageError(error.message);
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(`${error.message}\n${USAGE}`);
    }
    throw error;
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
  if (values.plan === undefined) throw new UsageError(`--plan is required\n${USAGE}`);
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
    throw new UsageError(
      `keys ${what} takes ${what === 'plan' ? 'a key id and a plan' : 'one key id'}\n${USAGE}`,
    );
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
