import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of the CPU times in /proc/<pid>/stat, 100 a second on Linux. */
const TICK_MS = 10;

/** utime + stime of one /proc stat line, in ms (fields 14 and 15, after the command in parentheses). */
function cpuMsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** CPU time of a process so far, in ms: every thread, and the main thread alone. */
export function processCpuMs(pid: number): { all: number; main: number } {
  return {
    all: cpuMsOf(readFileSync(`/proc/${pid}/stat`, 'utf8')),
    main: cpuMsOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
  };
}

/** The pids of a process's children (its threads' children together). */
export function childPids(pid: number): number[] {
  const tasks = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return tasks === '' ? [] : tasks.split(' ').map(Number);
}
