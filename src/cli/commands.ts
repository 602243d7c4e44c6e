/**
 * Every command of `petstore`, in the order `petstore --help` lists them: the one registry that
 * dispatch, help and usage read. To add a command, add a row here (a two-word name such as
 * `keys create` is a subcommand: its module gets the arguments after the first word, so one module
 * can serve a whole group). A command's module is loaded only when it runs.
 */

export type CommandModule = { run(args: string[]): Promise<void> };

export type Command = {
  /** One word, or a group and a subcommand (`keys create`). */
  readonly name: string;
  /** What follows the name in a usage line: options and arguments. */
  readonly synopsis: string;
  /** One line, for `petstore --help`. */
  readonly summary: string;
  /** More for `petstore <command> --help`: options, what it prints, exit statuses. */
  readonly details?: string;
  readonly load: () => Promise<CommandModule>;
};

import { SCOPES } from '../domain/scopes.ts';

const keys = () => import('./keys.ts');
const projections = () => import('./projections.ts');
const PROJECTION_URL = `With --url, asks that running server about its own read models (its admin endpoints, with the
key in PETSTORE_API_KEY, which needs the admin scope). Without it, works on the store and the
snapshot files of PETSTORE_DATA_DIR.`;

export const COMMANDS: readonly Command[] = [
  {
    name: 'start',
    synopsis: '[--port <port>] [--host <host>] [--data-dir <dir>] [--workers <n>]',
    summary: 'serve the API until Ctrl-C or SIGTERM (what npm start runs)',
    details: `Options (each wins over its environment variable):
  --port <port>     port to listen on, 0 for any free port (PORT, default 3000)
  --host <host>     address to listen on (HOST, default 127.0.0.1)
  --data-dir <dir>  the embedded store's directory, created if missing (PETSTORE_DATA_DIR, default .data)
  --workers <n>     server processes sharing the port and the store (WORKERS, default: every core in
                    production, else 1)

Every other setting comes from the environment: see the README, section Configuration.`,
    load: () => import('./start.ts'),
  },
  {
    name: 'keys create',
    synopsis:
      '--plan <free|pro|business|enterprise> [--name <name>] [--per-minute N --per-day N]\n' +
      '                   [--scopes <scope,…>] [--expires-in <30d> | --expires-at <RFC 3339 time>]',
    summary: 'issue an API key; prints the key alone on stdout',
    details: `The key is stored only as a hash and never shown again. --per-minute and --per-day are
required for, and only allowed with, the enterprise plan. Creates the store if there is none.
Scopes: ${SCOPES.join(', ')}; by default a key gets pets:read,pets:write,orders:read,orders:write.`,
    load: keys,
  },
  {
    name: 'keys list',
    synopsis: '[--json]',
    summary: 'every key: id, name, plan, limits, scopes, issued, status (never a secret)',
    load: keys,
  },
  {
    name: 'keys revoke',
    synopsis: '<key-id>',
    summary: 'revoke a key: it stops working within a second',
    load: keys,
  },
  {
    name: 'keys plan',
    synopsis: '<key-id> <plan> [--per-minute N --per-day N]',
    summary: "change a key's plan; its counters carry over",
    load: keys,
  },
  {
    name: 'keys scopes',
    synopsis: '<key-id> <scope,…>',
    summary: "replace a key's scopes",
    details: `Scopes: ${SCOPES.join(', ')}.`,
    load: keys,
  },
  {
    name: 'keys rotate',
    synopsis: '<key-id> [--grace <1h>]',
    summary: 'give a key a new secret; prints it alone on stdout',
    details: `The key keeps its id, plan, scopes and counters; the old secret works until the grace
ends (default 1h).`,
    load: keys,
  },
  {
    name: 'keys unban',
    synopsis: '<key-id>',
    summary: 'lift the ban on a key that kept sending past its limit',
    load: keys,
  },
  {
    name: 'catalogue',
    synopsis: '--as-of <RFC 3339 time | store position> [--status available|pending|sold]',
    summary: 'the catalogue as it was at a time or store position, one pet per line as JSON',
    details: `Pets in ascending id order, from the temporal index in the data directory (caught up with
the store first; built on first use). Each line is the pet as REST shows it, plus its \`version\`
then (REST's ETag, GraphQL's Pet.version).`,
    load: () => import('./catalogue.ts'),
  },
  {
    name: 'events',
    synopsis: '[--stream S] [--type T] [--from P] [--follow]',
    summary: "the store's events as JSON lines, oldest first, as GET /v1/audit/events shows them",
    details: `Every event from position P on (from the first without --from), only of stream S or of
type T if asked. With --follow it then prints each new event as it is stored, until interrupted
(status 0); interrupted without --follow, it may not have printed them all: status 130 or 143.`,
    load: () => import('./events.ts'),
  },
  {
    name: 'projections status',
    synopsis: '[--url URL] [--json]',
    summary: 'each read model: its version, checkpoint and lag',
    details: PROJECTION_URL,
    load: projections,
  },
  {
    name: 'projections rebuild',
    synopsis: '[name] [--url URL]',
    summary: 'fold every event into a new read model (all of them when none is named)',
    details: `${PROJECTION_URL}
A server rebuilds beside the live read model, which keeps serving, and swaps it in once caught up.
Offline, the rebuild writes a new snapshot (a running server keeps its own read model until it
restarts).`,
    load: projections,
  },
  {
    name: 'projections verify',
    synopsis: '[name] [--url URL] [--json]',
    summary: 'fold every event afresh and compare with the read model and its snapshot',
    details: `${PROJECTION_URL}
Exits with 1 and names the first difference when they disagree.`,
    load: projections,
  },
  {
    name: 'backup',
    synopsis: '<file> [--json]',
    summary: 'copy the embedded store to a new file while servers keep writing to it',
    details: `A consistent copy of PETSTORE_DATA_DIR/events.sqlite (copying the live file with cp is not: its
latest commits are in events.sqlite-wal), as SQLite's online backup takes it. It never replaces a
file; it writes beside <file> and gives the copy that name only once it is whole and on disk.
Prints the file, its size, and the events it holds (how many, up to which position), read from the
copy. Only the events are backed up: the snapshots and the temporal index are derived from them.
A KurrentDB store (EVENT_STORE_URL) is backed up with KurrentDB's own tools. Restore it with
petstore restore.`,
    load: () => import('./backup.ts'),
  },
  {
    name: 'restore',
    synopsis: '<backup> [--after-position N]',
    summary: 'put a backup in the embedded store’s place, keeping the store it replaces',
    details: `Refuses while any process has the store open (stop servers, forwarders and commands first),
and refuses a backup that is no store or is damaged (SQLite's quick_check), before anything is
replaced; the backup itself is never changed. The store it replaces is renamed, with its -wal and
-shm, to events.sqlite.replaced-<time>, whole. New events take positions after the replaced store's
last one, so that no position a client learnt is given to another event; --after-position N sets
that (say, the last position a Kafka topic holds) where the replaced store is gone or unreadable;
an N short of the replaced store's last position is passed over for it.
The pet and order ids the replaced store had reserved past the backup's are reserved again (one
event each), so that none is handed out twice.
Snapshots and the temporal index are checked at start, as always. See the README, section Backups.`,
    load: () => import('./restore.ts'),
  },
  {
    name: 'forward',
    synopsis: '',
    summary: 'publish the store’s events to Kafka (one forwarder at a time)',
    details: `Configured by KAFKA_BROKERS, KAFKA_TOPIC and the store's variables (see the README,
section Production). Exits with status 0 when another forwarder takes over.`,
    load: () => import('./forward.ts'),
  },
];

export function usageLine(command: Command): string {
  return `petstore ${command.name}${command.synopsis === '' ? '' : ` ${command.synopsis}`}`;
}

/** `petstore --help`. */
export function overview(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length)) + 2;
  const rows = COMMANDS.map((command) => `  ${command.name.padEnd(width)}${command.summary}`);
  return `Usage: petstore <command> [options]

Commands:
${rows.join('\n')}

Options:
  -h, --help     this help; petstore <command> --help shows a command's
  -v, --version  the version

The commands work on the store PETSTORE_DATA_DIR (default .data, from the current directory)
or EVENT_STORE_URL names, and say which on stderr. See README.md.
`;
}

/** `petstore <command> --help`: one command, or every command of a group (`petstore keys --help`). */
export function commandHelp(commands: readonly Command[]): string {
  if (commands.length > 1)
    return `Usage:\n${commands.map((c) => `  ${usageLine(c)}\n      ${c.summary}`).join('\n')}\n`;
  const [command] = commands;
  const details = command!.details === undefined ? '' : `\n${command!.details}\n`;
  return `Usage: ${usageLine(command!)}\n\n${command!.summary[0]!.toUpperCase()}${command!.summary.slice(1)}.\n${details}`;
}
