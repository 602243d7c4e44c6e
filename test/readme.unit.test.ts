import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/commands.ts';

/** The README a newcomer follows: everything it points to is in the repository. */

const ROOT = path.resolve(import.meta.dirname, '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('README.md', () => {
  it('refers to no file outside the repository', () => {
    expect(README.match(/\.\.\/[\w./-]+/g) ?? []).toEqual([]);
  });

  it('links only to files that exist', () => {
    const targets = [...README.matchAll(/\]\(([^)#:]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!);
    expect(targets.length).toBeGreaterThan(0);
    expect(targets.filter((target) => !existsSync(path.join(ROOT, target)))).toEqual([]);
  });

  it('points to the interface contract kept in the repository', () => {
    expect(README).toContain('[`docs/pet-store-interface.md`](docs/pet-store-interface.md)');
    expect(readFileSync(path.join(ROOT, 'docs/pet-store-interface.md'), 'utf8')).toMatch(
      /^# Pet Store Service Interface\n/,
    );
  });

  it('lists every petstore command in its table of commands', () => {
    const table = README.slice(
      README.indexOf('The commands of `petstore`'),
      README.indexOf('Every command names'),
    );
    const rows = [...table.matchAll(/^\| `petstore ([a-z]+)(?: ([a-z\\|]+))?/gm)].map((match) => ({
      command: match[1]!,
      subcommands: (match[2] ?? '').split('\\|'),
    }));
    const missing = COMMANDS.map((command) => command.name).filter((name) => {
      const [command, subcommand = ''] = name.split(' ');
      return !rows.some(
        (row) => row.command === command && (subcommand === '' || row.subcommands.includes(subcommand)),
      );
    });
    expect(missing).toEqual([]);
  });

  it('lists in its Configuration table every variable src/config.ts reads, and no other', () => {
    const table = README.slice(
      README.indexOf('\n## Configuration\n'),
      README.indexOf("Node's own `NODE_COMPILE_CACHE`"),
    );
    const listed = new Set(
      table
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .flatMap((line) =>
          [...line.split('|')[1]!.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((match) => match[1]!),
        ),
    );
    const config = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
    const schema = config.slice(config.indexOf('const schema = z'), config.indexOf('export type Config'));
    const read = new Set([...schema.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1]!));
    expect(read.size).toBeGreaterThan(0);
    expect([...read].filter((name) => !listed.has(name)).sort()).toEqual([]);
    expect([...listed].filter((name) => !read.has(name)).sort()).toEqual([]);
  });

  it('has an Operations section on metrics, health, tracing and logs', () => {
    const operations = README.slice(
      README.indexOf('\n## Operations\n'),
      README.indexOf('<!-- section:architecture -->'),
    );
    expect(operations.match(/^### .+$/gm)).toEqual(['### Metrics', '### Health', '### Tracing', '### Logs']);
  });

  it('lists in the Logs section every event field the service logs, for alerts', () => {
    const logs = README.slice(README.indexOf('\n### Logs\n'), README.indexOf('**Access log.**'));
    const listed = new Set([...logs.matchAll(/`([a-z_]+\.[a-z_]+)`/g)].map((match) => match[1]!));
    const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(path.join(ROOT, 'src', file), 'utf8'));
    const logged = new Set(
      sources.flatMap((source) =>
        [...source.matchAll(/event: '([a-z_]+\.[a-z_]+)'/g)].map((match) => match[1]!),
      ),
    );
    expect(logged.size).toBeGreaterThan(0);
    expect([...logged].filter((event) => !listed.has(event)).sort()).toEqual([]);
  });

  it('answers the versioning questions the contract leaves "not shown"', () => {
    const versions = README.slice(
      README.indexOf('\n### Versions, addresses and compatibility\n'),
      README.indexOf('<!-- section:store -->'),
    );
    expect(versions).toMatch(/^\n### Versions, addresses and compatibility\n/);
    for (const topic of ['staging', 'compatibility policy', 'stability marker', 'test panel', 'category'])
      expect(versions.toLowerCase().replaceAll(/\s+/g, ' ')).toContain(topic);
  });
});
