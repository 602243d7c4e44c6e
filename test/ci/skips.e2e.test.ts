import { spawnSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A suite that needs a service the machine lacks, run by vitest as a newcomer would run it:
 * outside CI it is skipped with one line saying which suite and why; under CI=true it fails.
 * The machine here lacks Redis because PATH holds nothing but node.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const bin = makeTempDir('petstore-bin-');
symlinkSync(process.execPath, path.join(bin.dir, 'node'));
afterAll(() => bin.remove());

function vitest(file: string, env: Record<string, string>): { status: number | null; output: string } {
  const { CI: _ci, ...inherited } = process.env;
  const run = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', file], {
    cwd: ROOT,
    env: { ...inherited, PATH: bin.dir, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

const NOT_RUN =
  'Redis rate limits: NOT RUN, redis-server is not installed (bash .ci/install-services.sh installs it); with CI=true this is an error';

it('skips the Redis suite without redis-server, saying so on one line', () => {
  const run = vitest('test/rate-limits/redis-limits.int.test.ts', {});
  expect(run.status, run.output).toBe(0);
  expect(run.output.split('\n').filter((line) => line.includes('NOT RUN'))).toEqual([NOT_RUN]);
});

it('fails the Redis suite without redis-server under CI=true', () => {
  const run = vitest('test/rate-limits/redis-limits.int.test.ts', { CI: 'true' });
  expect(run.status).not.toBe(0);
  expect(run.output).toContain(
    'Redis rate limits cannot run, and CI=true does not allow skipping it: redis-server is not installed',
  );
});
