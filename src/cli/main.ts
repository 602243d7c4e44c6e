import packageJson from '../../package.json' with { type: 'json' };
import { UnreadableEventError } from '../application/ports/event-store.ts';
import { ConfigError } from '../config.ts';
import { isAppError } from '../shared/errors.ts';
import { type Command, commandHelp, overview, usageLine } from './commands.ts';
import { dispatch } from './dispatch.ts';
import { exitOnOutputErrors } from './output.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

/** `petstore <command>`: reads the command table (commands.ts), runs one command, reports its failure. */

const request = dispatch(process.argv.slice(2));
exitOnOutputErrors(() => (request.kind === 'run' ? `petstore ${request.command.name}` : 'petstore'));
switch (request.kind) {
  case 'overview':
    (request.exitCode === 0 ? process.stdout : process.stderr).write(overview());
    process.exitCode = request.exitCode;
    break;
  case 'version':
    process.stdout.write(`petstore ${packageJson.version}\n`);
    break;
  case 'help':
    process.stdout.write(commandHelp(request.commands));
    break;
  case 'unknown': {
    const usage = request.commands === undefined ? overview() : commandHelp(request.commands);
    process.stderr.write(`petstore: ${request.message}\n\n${usage}`);
    process.exitCode = 2;
    break;
  }
  case 'run':
    try {
      await (await request.command.load()).run(request.args);
    } catch (error) {
      // A damaged or unreadable store can show itself late (reading the keys, catching up).
      const { storeFailure } = await import('./store.ts');
      const failure = describeFailure(storeFailure(error) ?? error, request.command);
      process.stderr.write(`petstore ${request.command.name}: ${failure.message}\n`);
      if (failure.usage) process.stderr.write(`\nUsage: ${usageLine(request.command)}\n`);
      if (failure.stack !== undefined) process.stderr.write(`${failure.stack}\n`);
      // Whatever the command left open (a store, a half-started server) must not keep it alive.
      process.exit(failure.exitCode);
    }
}

type Failure = { message: string; exitCode: 1 | 2; usage?: boolean; stack?: string };

/**
 * One line for every failure an operator can cause: mistakes in the command line (status 2) and
 * conditions to fix (status 1). Anything else is a bug or an unforeseen condition: still one line,
 * with the stack trace only when LOG_LEVEL asks for debugging.
 */
function describeFailure(error: unknown, command: Command): Failure {
  if (error instanceof UsageError) return { message: error.message, exitCode: 2, usage: true };
  if (isParseArgsError(error)) return { message: parseArgsMessage(error), exitCode: 2, usage: true };
  if (error instanceof ConfigError) return { message: error.message, exitCode: 2 };
  if (isAppError(error))
    return { message: error.message, exitCode: error.code === 'validation_failed' ? 2 : 1 };
  if (error instanceof CommandFailure || error instanceof UnreadableEventError)
    return { message: error.message, exitCode: 1 };
  const message = error instanceof Error ? error.message : String(error);
  const debugging = ['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '');
  return {
    message: `${message} (unexpected: LOG_LEVEL=debug petstore ${command.name} … prints the details)`,
    exitCode: 1,
    ...(debugging && error instanceof Error && error.stack !== undefined ? { stack: error.stack } : {}),
  };
}

function isParseArgsError(error: unknown): error is Error & { code: string } {
  return (
    error instanceof TypeError && String((error as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS')
  );
}

/** node:util parseArgs's messages, shortened to their first sentence: `unknown option --foo`. */
function parseArgsMessage(error: Error & { code: string }): string {
  const unknown = /^Unknown option '([^']+)'/.exec(error.message);
  if (unknown !== null) return `unknown option ${unknown[1]}`;
  const unexpected = /^Unexpected argument '([^']*)'/.exec(error.message);
  if (unexpected !== null) return `unexpected argument ${unexpected[1]}`;
  const missing = /^Option '(-[^' ]+)(?: <value>)?' argument missing/.exec(error.message);
  if (missing !== null) return `${missing[1]} needs a value`;
  // `--from -1`: the value looks like a flag of its own.
  const ambiguous = /^Option '(-[^' ]+)' argument is ambiguous/.exec(error.message);
  if (ambiguous !== null)
    return `${ambiguous[1]} needs a value (one that starts with a dash is written ${ambiguous[1]}=-…)`;
  return error.message.split(/\.(\s|$)/)[0]!;
}
