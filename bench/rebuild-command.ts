import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type Machine, onServerCpu } from './machine.ts';
import { PETSTORE_BIN, ROOT } from './servers.ts';

export type RebuildCommandFigures = {
  readonly events: number;
  /** The rate the command reports on its last progress line. */
  readonly eventsPerSecond: number;
  /** The whole command, from spawn to exit (Node's start and opening the store included). */
  readonly wallMs: number;
};

/**
 * The rebuild an operator runs: `petstore projections rebuild pet-list` on a data directory with
 * no server (offline: a fresh fold of every event, then a snapshot saved), on the server core.
 */
export async function measureRebuildCommand(
  machine: Machine,
  dataDir: string,
): Promise<RebuildCommandFigures> {
  const [command, args] = onServerCpu(machine, [PETSTORE_BIN, 'projections', 'rebuild', 'pet-list']);
  const started = performance.now();
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, PETSTORE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const [code] = (await once(child, 'exit')) as [number | null];
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`petstore projections rebuild exited with ${code}:\n${stderr}`);
  // The last progress line: "pet-list: 100%, 1,000,001 events, 612,000 events/s, ETA 0 s".
  const last = /pet-list: \d+%, ([\d,]+) events, ([\d,]+) events\/s[^\n]*\n?$/.exec(stderr);
  if (last === null) throw new Error(`petstore projections rebuild printed no progress line:\n${stderr}`);
  const number = (text: string) => Number(text.replace(/,/g, ''));
  return { events: number(last[1]!), eventsPerSecond: number(last[2]!), wallMs };
}
