import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canRun, commandMissing } from '../support/availability.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Group commit, observed from outside: strace counts the fsyncs of a process that appends a burst
 * of concurrent events. Grouping is what lets one fsync acknowledge many writes.
 */
const available = canRun('Group commit, traced', commandMissing('strace', ['-V']));

const temp = makeTempDir();
afterAll(() => temp.remove());

/** The trace of a process appending a burst of `count` events: fsyncs and what it printed, by thread. */
function traceBurst(count: number): string[] {
  const trace = path.join(temp.dir, `strace-${count}.txt`);
  const script = path.resolve(import.meta.dirname, '../support/append-burst.ts');
  execFileSync('strace', [
    '-f',
    '-qq',
    '-e',
    'trace=fsync,fdatasync,write',
    '-o',
    trace,
    process.execPath,
    script,
    path.join(temp.dir, `burst-${count}.sqlite`),
    String(count),
  ]);
  return readFileSync(trace, 'utf8').split('\n');
}

const isFsync = (line: string) => /\b(fsync|fdatasync)\(/.test(line);

function fsyncsForBurst(count: number): number {
  return traceBurst(count).filter(isFsync).length;
}

describe.runIf(available)('group commit', () => {
  it('makes 64 concurrent appends durable with the fsyncs of a single one', () => {
    const single = fsyncsForBurst(1);
    const burst = fsyncsForBurst(64);
    expect(single).toBeGreaterThan(0);
    expect(burst).toBe(single);
  });

  it('fsyncs every commit on a thread of its own, never on the thread that serves reads', () => {
    const lines = traceBurst(64);
    const printed = (text: string) => lines.findIndex((line) => line.includes(`write(1, "${text}`));
    const mainThread = lines[printed('pid ')]!.split(' ')[0]; // strace -f: each line starts with its thread id
    const whileOpen = lines.slice(printed('opened'), printed('closing')).filter(isFsync);
    expect(whileOpen.length).toBeGreaterThan(0);
    expect(whileOpen.filter((line) => line.startsWith(`${mainThread} `))).toEqual([]);
  });
});
