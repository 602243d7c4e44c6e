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

const keys = () => import('./keys.ts');

export const COMMANDS: readonly Command[] = [
  {
    name: 'start',
    synopsis: '[--port <port>] [--host <host>] [--data-dir <dir>]',
    summary: 'serve the API until Ctrl-C or SIGTERM (what npm start runs)',
    details: `Options (each wins over its environment variable):
  --port <port>     port to listen on, 0 for any free port (PORT, default 3000)
  --host <host>     address to listen on (HOST, default 127.0.0.1)
  --data-dir <dir>  the embedded store's directory, created if missing (PETSTORE_DATA_DIR, default .data)

Every other setting comes from the environment: see the README, section Configuration.`,
    load: () => import('./start.ts'),
  },
  {
    name: 'keys create',
    synopsis: '--plan <free|pro|business|enterprise> [--name <name>] [--per-minute N --per-day N]',
    summary: 'issue an API key; prints the key alone on stdout',
    details: `The key is stored only as a hash and never shown again. --per-minute and --per-day are
required for, and only allowed with, the enterprise plan. Creates the store if there is none.`,
    load: keys,
  },
  {
    name: 'keys list',
    synopsis: '[--json]',
    summary: 'every key: id, name, plan, limits, issued, status (never a secret)',
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
    name: 'keys unban',
    synopsis: '<key-id>',
    summary: 'lift the ban on a key that kept sending past its limit',
    load: keys,
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
