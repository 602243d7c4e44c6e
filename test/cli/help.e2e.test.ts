import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import packageJson from '../../package.json' with { type: 'json' };
import { COMMANDS } from '../../src/cli/commands.ts';
import { PETSTORE_BIN, runPetstore } from '../support/petstore-cli.ts';

/** `petstore` explains itself: help, usage and version, as an operator meets them in a terminal. */

describe('petstore --help', () => {
  it.each(['--help', '-h'])('%s lists every command on stdout and exits 0', async (flag) => {
    const { code, stdout, stderr } = await runPetstore([flag]);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    for (const name of [
      'start',
      'keys create',
      'keys list',
      'keys revoke',
      'keys plan',
      'keys unban',
      'backup',
      'forward',
    ])
      expect(stdout).toMatch(new RegExp(`^  ${name} +\\S`, 'm'));
  });

  it('lists exactly the commands of the command table', async () => {
    const { stdout } = await runPetstore(['--help']);
    const listed = [...stdout.matchAll(/^ {2}([a-z]+(?: [a-z]+)?) {2,}/gm)].map((match) => match[1]);
    expect(listed).toEqual(COMMANDS.map((command) => command.name));
  });
});

describe('petstore <command> --help', () => {
  it.each(COMMANDS.map((command) => command.name))('%s --help prints its usage and exits 0', async (name) => {
    const { code, stdout, stderr } = await runPetstore([...name.split(' '), '--help']);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    expect(stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: petstore ${name}( |$)`));
  });

  it('keys list --help names every column keys list prints, scopes included', async () => {
    const { stdout } = await runPetstore(['keys', 'list', '--help']);
    expect(stdout).toContain('Every key: id, name, plan, limits, scopes, issued, status (never a secret).');
  });

  it('keys --help lists every keys command', async () => {
    const { code, stdout } = await runPetstore(['keys', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('petstore keys plan <key-id> <plan>');
    expect(stdout).toContain('petstore keys unban <key-id>');
  });
});

describe('petstore --version', () => {
  it('prints the version and exits 0', async () => {
    expect(await runPetstore(['--version'])).toEqual({
      code: 0,
      stdout: `petstore ${packageJson.version}\n`,
      stderr: '',
    });
  });
});

describe('a command line petstore does not know', () => {
  it('an unknown command: one line, then the usage, exit 2', async () => {
    const { code, stdout, stderr } = await runPetstore(['frobnicate']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    const [first, blank, usage] = stderr.split('\n');
    expect([first, blank, usage]).toEqual([
      'petstore: unknown command frobnicate',
      '',
      'Usage: petstore <command> [options]',
    ]);
  });

  it('an empty command (an unset "$COMMAND"): named as "", not as nothing', async () => {
    const { code, stderr } = await runPetstore(['']);
    expect([code, stderr.split('\n')[0]]).toEqual([2, 'petstore: unknown command ""']);
  });

  it('an unknown option of a command: one line, then its usage, exit 2', async () => {
    expect(await runPetstore(['start', '--prot', '8080'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'petstore start: unknown option --prot\n\nUsage: petstore start [--port <port>] [--host <host>] [--data-dir <dir>] [--workers <n>]\n',
    });
  });

  it('a flag whose value starts with a dash: one line saying how to give it, then the usage, exit 2', async () => {
    const { code, stderr } = await runPetstore(['events', '--from', '-1']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe(
      'petstore events: --from needs a value (one that starts with a dash is written --from=-…)',
    );
  });

  it('a flag without its value: one line naming it, then the usage, exit 2', async () => {
    const { code, stderr } = await runPetstore(['events', '--from']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('petstore events: --from needs a value');
  });

  it('an unknown keys command: one line, then the keys usage, exit 2', async () => {
    const { code, stderr } = await runPetstore(['keys', 'delete', 'key_1']);
    expect(code).toBe(2);
    expect(stderr.split('\n').slice(0, 3)).toEqual(['petstore: unknown command keys delete', '', 'Usage:']);
  });

  it('no command at all: the usage on stderr, exit 2', async () => {
    const { code, stdout, stderr } = await runPetstore([]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^Usage: petstore <command>/);
  });
});

describe('output into a pipe that closes', () => {
  it('ends quietly, with status 0 and nothing on stderr', async () => {
    const child = spawn(process.execPath, [PETSTORE_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy(); // the reader has gone before the first byte is written
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code] = (await once(child, 'close')) as [number | null];
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });
});
