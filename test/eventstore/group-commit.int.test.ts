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

function fsyncsForBurst(count: number): number {
  const trace = path.join(temp.dir, `strace-${count}.txt`);
  const script = path.resolve(import.meta.dirname, '../support/append-burst.ts');
  execFileSync('strace', [
    '-f',
    '-qq',
    '-e',
    'trace=fsync,fdatasync',
    '-o',
    trace,
    process.execPath,
    script,
    path.join(temp.dir, `burst-${count}.sqlite`),
    String(count),
  ]);
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /\b(fsync|fdatasync)\(/.test(line)).length;
}

describe.runIf(available)('group commit', () => {
  it('makes 64 concurrent appends durable with the fsyncs of a single one', () => {
    const single = fsyncsForBurst(1);
    const burst = fsyncsForBurst(64);
    expect(single).toBeGreaterThan(0);
    expect(burst).toBe(single);
  });
});
