import { execFile } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Cells of the Markdown table row whose first cell starts with `label`. */
function row(table: string, label: string): string[] | undefined {
  const line = table.split('\n').find((l) => l.startsWith(`| ${label}`));
  return line
    ?.split('|')
    .slice(1, -1)
    .map((cell) => cell.trim());
}

const number = (cell: string | undefined) =>
  Number((cell ?? '').replace(/,/g, '').match(/[\d.]+/)?.[0] ?? NaN);

// The benchmark's quick mode proves that it still runs end to end; its figures are not judged here.
describe('npm run bench -- --quick', () => {
  it(
    'prints every scenario, store, latency, workers and scale figure with positive values, and appends nothing',
    { timeout: 240_000 },
    async () => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [path.join(ROOT, 'bench/run.ts'), '--quick'],
        {
          cwd: ROOT,
          maxBuffer: 16 * 1024 * 1024,
        },
      );

      const scenarios = [
        'GET /v1/pets?limit=20',
        'GET /v1/pets?status=available&limit=100',
        'GET /v1/pets/{id}',
        'GET /v1/pets/{id}/history',
        'POST /v1/pets (durable)',
        'PATCH /v1/pets/{id} (durable)',
        'POST /v1/store/orders, then cancel (durable)',
        'mixed 90% read / 10% write',
        'GraphQL pets(first: 20)',
      ];
      for (const name of scenarios) {
        const cells = row(stdout, name);
        expect(cells, name).toBeDefined();
        const [, connections, rps, p50, p99, failed, baselineRps] = cells!;
        expect(number(connections), name).toBeGreaterThan(0);
        expect(number(rps), name).toBeGreaterThan(0);
        expect(number(p50), name).toBeGreaterThanOrEqual(0);
        expect(number(p99), name).toBeGreaterThan(0);
        expect(number(failed), name).toBe(0);
        expect(number(baselineRps), name).toBeGreaterThan(0);
      }
      for (const figure of [
        'Rebuild pet-list',
        'Rebuild pet-list with `petstore projections rebuild`',
        'Start-up with',
        'Read model, heap per pet',
        'Durable appends, 1 writer',
        'Durable appends, 16 writers',
        'Durable appends, 64 writers',
      ]) {
        expect(number(row(stdout, figure)?.[1]), figure).toBeGreaterThan(0);
      }
      // The scale table's quick sizes: start-ups, heap, RSS, rebuild, and both reads.
      for (const pets of ['1,000', '5,000', '10,000']) {
        const cells = row(stdout, `${pets} |`);
        expect(cells, pets).toHaveLength(8);
        for (const cell of cells!.slice(1)) expect(number(cell), `${pets}: ${cell}`).toBeGreaterThan(0);
      }
      expect(number(row(stdout, 'GET /v1/pets/{id} with 10,000 pets')?.[1])).toBeGreaterThan(0);
      expect(number(row(stdout, 'Projection lag between two API processes')?.[1])).toBeGreaterThanOrEqual(0);
      // GET latency alone and with writes, at the quick mode's one size.
      const latency = row(stdout, '2,000 |')!;
      expect(latency, 'read latency').toBeDefined();
      expect(latency[1]!.split(' / ').map(Number)).toHaveLength(4);
      expect(number(latency[5])).toBe(0);
      // The host's steal on the server core during each phase, alone and with the writes.
      expect(latency[9]).toMatch(/^[\d.]+% \(worst second \d+%\); [\d.]+% \(worst second \d+%\)$/);
      // How busy the server kept its core in each phase: the writes add to what the reads alone took.
      const busy = /^(\d+)% \(main (\d+)%\); (\d+)% \(main (\d+)%\)$/.exec(latency[10]!);
      expect(busy, latency[10]).not.toBeNull();
      const [alone, aloneMain, withWrites, withWritesMain] = busy!.slice(1).map(Number) as [
        number,
        number,
        number,
        number,
      ];
      // The main thread's time and the process's are two reads of /proc, in 10 ms ticks that the
      // kernel scales apart for a thread and for its group: over the quick mode's 1 s window the
      // main thread may show a point more than the whole (27% against 26% in one CI run).
      expect(aloneMain).toBeLessThanOrEqual(alone + 1);
      expect(withWritesMain).toBeLessThanOrEqual(withWrites + 1);
      expect(withWrites).toBeGreaterThan(alone);
      // One worker and two, each with reads served and CPU per request.
      for (const workers of ['1', '2']) {
        const cells = row(stdout, `${workers} |`);
        expect(cells, `${workers} worker(s)`).toBeDefined();
        expect(number(cells![1])).toBeGreaterThan(0);
        expect(number(cells![2])).toBeGreaterThan(0);
        expect(number(cells![3])).toBe(0);
      }
      expect(stdout).toContain('quick');
      // Each scenario, and the whole run, with the CPU time the host took from this machine.
      expect(row(stdout, 'GET /v1/pets?limit=20')!.at(-1)).toMatch(/^[\d.]+% \(worst second \d+%\)$/);
      expect(stdout).toMatch(/^- CPU steal, .*: CPU 0 [\d.]+% \(worst second \d+%\)/m);
      // The issue asks for the machine beside the figures: its cores and the Node version.
      expect(stdout).toMatch(
        new RegExp(
          `^- Machine: .*, ${availableParallelism()} cores, .*Node ${process.version.replace(/\./g, '\\.')};`,
          'm',
        ),
      );
    },
  );
});
