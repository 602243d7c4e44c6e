import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { canRun, commandMissing } from '../support/availability.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Generated tests: Schemathesis fuzzes REST from the served OpenAPI document and GraphQL from the
 * committed SDL, against a real server process with a real key. Any 5xx, any response that breaks
 * the document, any undeliberate GraphQL error fails the run.
 */
const HERE = import.meta.dirname;

// .ci/install-services.sh installs Schemathesis in a virtual environment (Debian 12's own pip
// refuses system installs, PEP 668); a python3 on the PATH that has it will do as well.
const VENV_PYTHON = path.resolve(HERE, '../../.cache/venv/bin/python3');
const PYTHON = existsSync(VENV_PYTHON) ? VENV_PYTHON : 'python3';
// Run as a module, so that no console-script shim on the PATH is needed (pyenv, user installs).
const SCHEMATHESIS = ['-m', 'schemathesis.cli'];
const available = canRun(
  'Schemathesis fuzzing',
  commandMissing(PYTHON, [...SCHEMATHESIS, '--version'], `Schemathesis (for ${PYTHON})`),
);

const temp = makeTempDir();
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  if (!available) return;
  const env = { PETSTORE_DATA_DIR: temp.dir };
  key = createApiKey(env);
  server = await startServerProcess(env);
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  temp.remove();
});

function schemathesis(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    PYTHON,
    [
      ...SCHEMATHESIS,
      '--config-file',
      'schemathesis.toml',
      'run',
      ...args,
      '-H',
      `Authorization: Bearer ${key}`,
    ],
    {
      cwd: HERE,
      env: { ...process.env, SCHEMATHESIS_HOOKS: 'petstore_hooks', PYTHONPATH: HERE, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 240_000,
    },
  );
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

describe.runIf(available)('fuzzing with Schemathesis', () => {
  it('finds no failure in REST generated from the OpenAPI document', { timeout: 300_000 }, () => {
    const run = schemathesis(
      `${server.url}/v1/openapi.json`,
      '--url',
      `${server.url}/v1`,
      '--max-examples',
      '60',
    );
    expect(run.output).toContain('API Operations');
    expect(run.status, run.output).toBe(0);
  });

  it('finds no failure in GraphQL operations generated from the schema', { timeout: 300_000 }, () => {
    const run = schemathesis(
      path.resolve(HERE, '../../schema/schema.graphql'),
      '--url',
      `${server.url}/graphql`,
      '--max-examples',
      '100',
      '--checks',
      'graphql_errors_are_deliberate',
    );
    expect(run.output).toContain('API Operations');
    expect(run.status, run.output).toBe(0);
  });
});
