import { ConfigError } from '../config.ts';

/** `petstore <command>`: each command lives in its own module and is loaded only when used. */
const commands: Record<
  string,
  { summary: string; load: () => Promise<{ run(args: string[]): Promise<void> }> }
> = {
  start: { summary: 'run the API server', load: () => import('./start.ts') },
  keys: { summary: 'manage API keys: keys create|list|revoke', load: () => import('./keys.ts') },
  catalogue: {
    summary: 'the catalogue as of a time or store position, as JSON lines',
    load: () => import('./catalogue.ts'),
  },
  forward: {
    summary: 'forward events to Kafka (one forwarder at a time)',
    load: () => import('./forward.ts'),
  },
  events: { summary: "print the store's events as JSON lines (--follow)", load: () => import('./events.ts') },
  projections: { summary: 'read models: status|rebuild|verify', load: () => import('./projections.ts') },
};

function usage(): string {
  const lines = Object.entries(commands).map(([name, { summary }]) => `  ${name.padEnd(10)}${summary}`);
  return `Usage: petstore <command> [options]\n\nCommands:\n${lines.join('\n')}\n`;
}

const [name, ...args] = process.argv.slice(2);
const command = name === undefined ? undefined : commands[name];
if (command === undefined) {
  process.stderr.write(usage());
  process.exit(name === undefined || name === '--help' || name === 'help' ? 0 : 2);
}
try {
  const module = await command.load();
  await module.run(args);
} catch (error) {
  if (error instanceof ConfigError || (error instanceof Error && error.name === 'UsageError')) {
    process.stderr.write(`petstore ${name}: ${error.message}\n`);
    process.exit(2);
  }
  throw error;
}
