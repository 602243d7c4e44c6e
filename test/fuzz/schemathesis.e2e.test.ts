import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../support/openapi.ts';
import { createApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
import { requiredTool } from '../support/required-tool.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/**
 * Generated tests: Schemathesis fuzzes REST from the served OpenAPI document and GraphQL from the
 * committed SDL, against a real server process with a real key. Any 5xx, any response that breaks
 * the document, any undeliberate GraphQL error fails the run.
 */
const HERE = import.meta.dirname;

// Run as a module, so that no console-script shim on the PATH is needed (pyenv, user installs).
const SCHEMATHESIS = ['-m', 'schemathesis.cli'];
const available = requiredTool('python3', [...SCHEMATHESIS, '--version'], 'pip install schemathesis');

const temp = makeTempDir();
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  if (!available) return;
  // Schemathesis sends many requests without a key (to check that each is refused): more than the
  // per-address default allows in a minute, which would turn its 401s into 429s.
  const env = { PETSTORE_DATA_DIR: temp.dir, ANONYMOUS_PER_MINUTE: '100000', ANONYMOUS_PER_DAY: '1000000' };
  key = createApiKey(env, [
    ...['--plan', 'enterprise', '--per-minute', '10000000', '--per-day', '1000000000'],
    ...['--scopes', 'admin'],
  ]);
  server = await startServerProcess(env);
});
afterAll(async () => {
  await server?.kill('SIGKILL');
  temp.remove();
});

function schemathesis(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    'python3',
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
    // Every operation of the document, and chains of calls along its links (create → read →
    // change → remove; order → complete or cancel) in the stateful phase.
    const operations = Object.values(openApiDocument.paths).flatMap((path) => Object.keys(path)).length;
    expect(run.output).toContain(`Selected: ${operations}/${operations}`);
    expect(run.output).toMatch(/✅ Stateful/);
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
    // One operation per query and mutation field of the schema.
    const schema = buildSchema(readFileSync(path.resolve(HERE, '../../schema/schema.graphql'), 'utf8'));
    const fields = [schema.getQueryType(), schema.getMutationType()].flatMap((type) =>
      Object.keys(type!.getFields()),
    );
    expect(run.output).toContain(`Selected: ${fields.length}/${fields.length}`);
    expect(run.status, run.output).toBe(0);
  });
});
