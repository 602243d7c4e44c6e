import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);
const SCRIPT = path.resolve(import.meta.dirname, '../../support/replay-heap.ts');

it('holds no memory per replayed item while the stream stays open (200,000 items, under 8 MB)', async () => {
  const { stdout } = await run(process.execPath, ['--expose-gc', SCRIPT, '200000']);
  const { read, held } = JSON.parse(stdout) as { read: number; held: number };
  expect(read).toBe(200_000);
  expect(held).toBeLessThan(8_000_000);
});
