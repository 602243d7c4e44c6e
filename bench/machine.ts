import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, totalmem } from 'node:os';

/**
 * Where the figures come from, and how the two cores are split: the servers run on one core and
 * the load generator (this process) on another, so neither steals the other's CPU. With one core,
 * nothing is pinned and the report says so.
 */
export type Machine = {
  readonly cores: number;
  readonly cpuModel: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly platform: string;
  /** taskset CPU list for servers and store measurements, or undefined when not pinned. */
  readonly serverCpu: string | undefined;
  readonly loadCpu: string | undefined;
};

function hasTaskset(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pins this process (every thread) to the load generator's core and describes the machine. */
export function describeAndPinMachine(): Machine {
  const cores = availableParallelism();
  const pin = cores >= 2 && process.platform === 'linux' && hasTaskset();
  const serverCpu = pin ? '0' : undefined;
  const loadCpu = pin ? (cores > 2 ? `1-${cores - 1}` : '1') : undefined;
  if (loadCpu !== undefined)
    execFileSync('taskset', ['-a', '-cp', loadCpu, String(process.pid)], { stdio: 'ignore' });
  return {
    cores,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    serverCpu,
    loadCpu,
  };
}

/** The command line that runs `args` with Node on the server core. */
export function onServerCpu(machine: Machine, nodeArgs: readonly string[]): [string, string[]] {
  if (machine.serverCpu === undefined) return [process.execPath, [...nodeArgs]];
  return ['taskset', ['-c', machine.serverCpu, process.execPath, ...nodeArgs]];
}

/**
 * The command line that runs `command` on every core: this process is pinned to the load core,
 * and a child would inherit that.
 */
export function onEveryCpu(machine: Machine, nodeArgs: readonly string[]): [string, string[]] {
  return everyCpu(machine, [process.execPath, ...nodeArgs]);
}

/** Any command, unpinned (see onEveryCpu). */
export function everyCpu(machine: Machine, command: readonly string[]): [string, string[]] {
  if (machine.loadCpu === undefined) return [command[0]!, command.slice(1)];
  return ['taskset', ['-c', `0-${machine.cores - 1}`, ...command]];
}
