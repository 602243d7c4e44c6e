import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { canRun } from '../support/availability.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * A newcomer's first hour on a stock Debian 12, not CI's prepared machine: `npm install` with the
 * machine's own Node (20 on Debian's or NodeSource's packages), and `.ci/install-services.sh`
 * with Debian's own python3, whose pip refuses system installs (PEP 668).
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The PATH without node_modules/.bin: the machine's own node and npm, as a newcomer has them. */
const MACHINE_PATH = (process.env.PATH ?? '')
  .split(path.delimiter)
  .filter((entry) => !entry.includes('node_modules'))
  .join(path.delimiter);

describe('npm install on the machine’s own Node', () => {
  it('prints no warning: no wall of EBADENGINE for the Node 24 the install brings along', () => {
    const machineNode = execFileSync('node', ['--version'], {
      env: { ...process.env, PATH: MACHINE_PATH },
      encoding: 'utf8',
    });
    const run = spawnSync('npm', ['install', '--dry-run', '--no-audit', '--no-fund'], {
      cwd: ROOT,
      env: { ...process.env, PATH: MACHINE_PATH },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${run.stdout}${run.stderr}`;
    expect(run.status, output).toBe(0);
    expect(
      output.split('\n').filter((line) => /npm warn/i.test(line)),
      `with Node ${machineNode}`,
    ).toEqual([]);
  });
});

describe('.ci/install-services.sh with Debian’s own python3', () => {
  const debianPython = '/usr/bin/python3';
  const temp = makeTempDir('petstore-ci-');
  afterAll(() => temp.remove());

  const available = canRun(
    'install-services.sh with Debian’s python3',
    existsSync(debianPython) ? undefined : `${debianPython} is missing: not a Debian machine`,
  );

  it.runIf(available)(
    'installs Schemathesis into .cache/venv, never through the system’s pip',
    { timeout: 300_000 },
    () => {
      cpSync(path.join(ROOT, '.ci'), path.join(temp.dir, '.ci'), { recursive: true });
      const bin = path.join(temp.dir, 'bin');
      mkdirSync(bin);
      symlinkSync(debianPython, path.join(bin, 'python3'));
      const run = spawnSync('bash', [path.join(temp.dir, '.ci/install-services.sh')], {
        env: { ...process.env, PATH: `${bin}${path.delimiter}${process.env.PATH}` },
        encoding: 'utf8',
        timeout: 280_000,
      });
      expect(run.status, `${run.stdout}${run.stderr}`).toBe(0);
      const version = execFileSync(
        path.join(temp.dir, '.cache/venv/bin/python3'),
        ['-m', 'schemathesis.cli', '--version'],
        {
          encoding: 'utf8',
        },
      );
      expect(version).toContain('4.32.5');
    },
  );
});
