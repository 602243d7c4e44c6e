import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../support/openapi.ts';
import { createScopedApiKey, startServerProcess, type ServerProcess } from '../support/server-process.ts';
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
/**
 * The audit and admin operations are fuzzed on a server of their own: Schemathesis sends each
 * operation requests without a key, and on one server they would add up past the per-address
 * limit for requests without a key (20 a minute), turning its expected 401s into 429s.
 */
let operationsServer: ServerProcess;
let key: string;
const OPERATIONS_PATHS = '^/(audit|admin)/';
/** The probes live outside /v1 (their own `servers` in the document): fuzzed from the root. */
const HEALTH_PATHS = '^/health';
/** The keys of a path item that are operations (it may also hold `servers` or `parameters`). */
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

beforeAll(async () => {
  if (!available) return;
  // Schemathesis sends many requests without a key (to check that each is refused): more than the
  // per-address default allows in a minute, which would turn its 401s into 429s.
  const env = { PETSTORE_DATA_DIR: temp.dir, ANONYMOUS_PER_MINUTE: '100000', ANONYMOUS_PER_DAY: '1000000' };
  key = createScopedApiKey(env, ['admin']);
  [server, operationsServer] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
});
afterAll(async () => {
  await Promise.all([server?.kill('SIGKILL'), operationsServer?.kill('SIGKILL')]);
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
      '--exclude-path-regex',
      `${OPERATIONS_PATHS}|${HEALTH_PATHS}`,
      '--max-examples',
      '60',
    );
    // Every operation of the document, and chains of calls along its links (create → read →
    // change → remove; order → complete or cancel) in the stateful phase.
    const operations = Object.entries(openApiDocument.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => HTTP_METHODS.has(key))
        .map(() => path),
    );
    const selected = operations.filter(
      (path) => !new RegExp(`${OPERATIONS_PATHS}|${HEALTH_PATHS}`).test(path),
    );
    expect(run.output).toContain(`Selected: ${selected.length}/${operations.length}`);
    expect(run.output).toMatch(/✅ Stateful/);
    expect(run.status, run.output).toBe(0);
  });

  it('finds no failure in the audit and admin operations', { timeout: 300_000 }, () => {
    const run = schemathesis(
      `${operationsServer.url}/v1/openapi.json`,
      '--url',
      `${operationsServer.url}/v1`,
      '--include-path-regex',
      OPERATIONS_PATHS,
      '--max-examples',
      '30',
    );
    expect(run.output).toContain('API Operations');
    expect(run.status, run.output).toBe(0);
  });

  it(
    'finds no failure in the health probes, called at the root as their servers say',
    { timeout: 300_000 },
    () => {
      const run = schemathesis(
        `${server.url}/v1/openapi.json`,
        '--url',
        server.url,
        '--include-path-regex',
        HEALTH_PATHS,
        '--max-examples',
        '10',
        // They take no input and link to nothing: no stateful phase.
        '--phases',
        'examples,coverage,fuzzing',
      );
      expect(run.output).toContain('3 selected /');
      expect(run.status, run.output).toBe(0);
    },
  );

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
