import { type Command, COMMANDS } from './commands.ts';

/** What a command line asks for, before anything is loaded. */
export type Request =
  | { readonly kind: 'overview'; readonly exitCode: 0 | 2 }
  | { readonly kind: 'version' }
  | { readonly kind: 'help'; readonly commands: readonly Command[] }
  | { readonly kind: 'run'; readonly command: Command; readonly args: string[] }
  | { readonly kind: 'unknown'; readonly message: string; readonly commands?: readonly Command[] };

const HELP = new Set(['-h', '--help']);
const VERSION = new Set(['-v', '--version']);

/**
 * Reads `petstore …`'s arguments against the command table. A command's module gets every
 * argument after the first word (`keys create --plan free` reaches keys.ts as `create --plan free`).
 */
export function dispatch(argv: readonly string[], commands: readonly Command[] = COMMANDS): Request {
  const [first, ...rest] = argv;
  if (first === undefined) return { kind: 'overview', exitCode: 2 };
  if (HELP.has(first)) return { kind: 'overview', exitCode: 0 };
  if (VERSION.has(first)) return { kind: 'version' };
  if (first === 'help')
    return rest.length === 0 ? { kind: 'overview', exitCode: 0 } : helpFor(rest, commands);
  if (first.startsWith('-')) return { kind: 'unknown', message: `unknown option ${first}` };

  const group = commands.filter((command) => command.name.startsWith(`${first} `));
  const single = commands.find((command) => command.name === first);
  if (single !== undefined) {
    return rest.some((arg) => HELP.has(arg))
      ? { kind: 'help', commands: [single] }
      : { kind: 'run', command: single, args: rest };
  }
  if (group.length === 0) return { kind: 'unknown', message: `unknown command ${word(first)}` };

  const [second, ...options] = rest;
  const command = group.find((candidate) => candidate.name === `${first} ${second}`);
  if (command !== undefined) {
    return options.some((arg) => HELP.has(arg))
      ? { kind: 'help', commands: [command] }
      : { kind: 'run', command, args: rest };
  }
  if (second === undefined || HELP.has(second)) {
    return second === undefined
      ? { kind: 'unknown', message: `${first} needs a subcommand`, commands: group }
      : { kind: 'help', commands: group };
  }
  return { kind: 'unknown', message: `unknown command ${first} ${word(second)}`, commands: group };
}

/**
 * A word of the command line as a message shows it: quoted when it would not read as one (empty,
 * as an unset `"$COMMAND"` gives, or holding spaces or quotes).
 */
function word(text: string): string {
  return /^[^\s"]+$/.test(text) ? text : JSON.stringify(text);
}

function helpFor(words: readonly string[], commands: readonly Command[]): Request {
  const resolved = dispatch([...words, '--help'], commands);
  return resolved.kind === 'help' ? resolved : { kind: 'unknown', message: `no help for ${words.join(' ')}` };
}
