import path from 'node:path';
import { pino } from 'pino';
import type { Comparison, RebuildStatus, VerifyReport } from '../application/index.ts';
import { loadConfig } from '../config.ts';
import { offlineStatus, rebuildOffline, verifyOffline } from '../read-models/offline.ts';
import { PassedOverEventsError } from '../read-models/read-model.ts';
import { progressFigures } from '../read-models/rebuild.ts';
import { dataDirSnapshots } from '../read-models/snapshot-file.ts';
import { PROJECTIONS } from '../service.ts';
import { adminClient, type ReportedStatus } from './admin-client.ts';
import { parseCommandLine } from './command-line.ts';
import { type ProgressFigures, progressReporter } from './progress.ts';
import { failureReason } from './failure-reason.ts';
import { openCliStore } from './store.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

const NAMES = PROJECTIONS.map((projection) => projection.name);

/** `petstore projections status|rebuild|verify`: the read models, for operators. */
export async function run(args: string[]): Promise<void> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || !['status', 'rebuild', 'verify'].includes(subcommand)) {
    throw new UsageError(`unknown subcommand ${JSON.stringify(subcommand)}`);
  }
  const { values, positionals } = parseCommandLine({
    args: rest,
    // A rebuild prints no JSON: --json there is refused, not ignored (a script would parse its lines).
    options: { url: { type: 'string' }, ...(subcommand !== 'rebuild' && { json: { type: 'boolean' } }) },
    allowPositionals: true,
  });
  if (positionals.length > (subcommand === 'status' ? 0 : 1)) throw new UsageError('too many arguments');
  const names = positionals.length === 0 ? NAMES : positionals;
  for (const name of names) {
    if (!NAMES.includes(name))
      throw new UsageError(`no projection is named ${JSON.stringify(name)}: ${NAMES.join(', ')}`);
  }
  const config = loadConfig(process.env);
  const operator =
    values.url === undefined
      ? await offline(config, `projections ${subcommand}`)
      : remote(values.url, config.apiKey);
  try {
    if (subcommand === 'status') printStatus(await operator.status(), values.json === true);
    else if (subcommand === 'rebuild') for (const name of names) await rebuild(operator, name);
    else await verify(operator, names, values.json === true);
  } finally {
    await operator.close();
  }
}

/** Where a rebuild ended: its last figures; for a server's, its state; for an offline one, whether it saved a snapshot. */
type Rebuilt = ProgressFigures & {
  readonly state?: RebuildStatus['state'];
  readonly error?: string;
  readonly snapshotSaved?: boolean;
};

type Operator = {
  status(): Promise<readonly ReportedStatus[]>;
  rebuild(name: string, onProgress: (figures: ProgressFigures) => void): Promise<Rebuilt>;
  verify(name: string): Promise<VerifyReport>;
  close(): Promise<void>;
};

function remote(url: string, apiKey: string | undefined): Operator {
  const client = adminClient(url, apiKey);
  return { ...client, close: async () => {} };
}

async function offline(config: ReturnType<typeof loadConfig>, command: string): Promise<Operator> {
  const store = await openCliStore(config, command, 'must-exist');
  const snapshots = dataDirSnapshots(config.dataDir);
  const logger = pino({ level: 'silent' });
  const projection = (name: string) => PROJECTIONS.find((candidate) => candidate.name === name)!;
  return {
    status: () => offlineStatus(store, snapshots, PROJECTIONS),
    async rebuild(name, onProgress) {
      let last: ProgressFigures | undefined;
      const { checkpoint } = await rebuildOffline(store, snapshots, projection(name), logger, (progress) => {
        last = progressFigures(progress);
        onProgress(last);
      }).catch((error: unknown) => {
        throw snapshotFailure(path.join(config.dataDir, 'snapshots', `${name}.snapshot`), error);
      });
      return {
        ...(last ?? { events: 0, eventsPerSecond: 0 }),
        position: '1',
        target: '1',
        etaSeconds: 0,
        // An empty store has nothing to snapshot.
        snapshotSaved: checkpoint !== undefined,
      };
    },
    verify: (name) => verifyOffline(store, snapshots, projection(name), logger),
    close: () => store.close(),
  };
}

/** A snapshot file that could not be written, in one line: which, and why (and where, if elsewhere). */
function snapshotFailure(file: string, error: unknown): unknown {
  if (error instanceof PassedOverEventsError)
    return new CommandFailure(`${error.message}. Rebuild it with that release, or a later one.`, {
      cause: error,
    });
  const { syscall, path: failed } = error as NodeJS.ErrnoException;
  if (syscall === undefined) return error; // not the file system's: reading the store, say
  const where = failed === undefined || failed === file ? '' : ` (${failed})`;
  return new CommandFailure(`cannot write the snapshot ${file}: ${failureReason(error)}${where}`, {
    cause: error,
  });
}

async function rebuild(operator: Operator, name: string): Promise<void> {
  const progress = progressReporter();
  const finished = await operator.rebuild(name, (figures) => progress.update(name, figures));
  if (finished.state === 'failed') {
    process.exitCode = 1;
    process.stderr.write(`${name}: the rebuild failed: ${finished.error}\n`);
    return;
  }
  progress.done(name, finished);
  const swapped =
    finished.state !== undefined
      ? 'swapped in for the live read model'
      : finished.snapshotSaved === false
        ? 'the store holds no events, so no snapshot was written'
        : 'snapshot saved';
  process.stdout.write(`${name}: rebuilt from ${finished.events} events; ${swapped}\n`);
}

async function verify(operator: Operator, names: readonly string[], json: boolean): Promise<void> {
  const reports: VerifyReport[] = [];
  for (const name of names) reports.push(await operator.verify(name));
  const failed = reports.some((report) => isFailure(report.live) || isFailure(report.snapshot));
  if (failed) process.exitCode = 1;
  if (json) {
    process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
    return;
  }
  for (const report of reports) {
    process.stdout.write(`${report.name} v${report.version}:\n`);
    process.stdout.write(`  live read model: ${describe(report.live, 'live')}\n`);
    process.stdout.write(`  snapshot:        ${describe(report.snapshot, 'snapshot')}\n`);
  }
}

const isFailure = (comparison: Comparison) =>
  comparison.result === 'different' || comparison.result === 'refused';

function describe(comparison: Comparison, other: string): string {
  switch (comparison.result) {
    case 'same':
      return `same as a fresh fold of every event (at position ${comparison.checkpoint})`;
    case 'different':
      return `DIFFERS from a fresh fold (at position ${comparison.checkpoint}): first at ${comparison.path}: fresh ${comparison.expected}, ${other} ${comparison.actual}`;
    case 'refused':
      return `REFUSED: ${comparison.reason}`;
    default:
      return `not compared: ${comparison.reason}`;
  }
}

function printStatus(statuses: readonly ReportedStatus[], json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
    return;
  }
  const rows = [['PROJECTION', 'VERSION', 'CHECKPOINT', 'LAG', 'SNAPSHOT', 'REBUILD']];
  for (const status of statuses) {
    const { lag, snapshot, rebuild } = status;
    rows.push([
      status.name,
      `${status.version}${status.interimFromVersion === null ? '' : ` (serving v${status.interimFromVersion} meanwhile)`}`,
      status.checkpoint ?? '-',
      `${lag.capped ? '>' : ''}${lag.events} events, ${lag.seconds} s`,
      snapshotCell(snapshot, status.unreadableSnapshot ?? null),
      rebuild === null
        ? '-'
        : rebuild.state === 'failed'
          ? `failed: ${rebuild.error}`
          : `${rebuild.state}, ${rebuild.events} events`,
    ]);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows)
    process.stdout.write(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  // A server of an earlier release reports no unknownEvents: nothing to add for it.
  for (const { name, unknownEvents = [] } of statuses) {
    if (unknownEvents.length === 0) continue;
    const types = unknownEvents.map(({ type, firstPosition }) => `${type} (first at ${firstPosition})`);
    process.stdout.write(
      `${name}: NOT TRUSTED: passes over events of types this release does not know: ${types.join(', ')}; a newer release wrote them\n`,
    );
  }
}

function snapshotCell(snapshot: ReportedStatus['snapshot'], unreadable: string | null): string {
  // A file without a header this code reads: only why a start refuses it is known.
  if (unreadable !== null) return `REFUSED: ${unreadable}`;
  if (snapshot === null) return '-';
  const described = `v${snapshot.version} at ${snapshot.checkpoint}, ${age(snapshot.ageSeconds)} old`;
  return snapshot.refused === undefined ? described : `${described}, REFUSED: ${snapshot.refused}`;
}

function age(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3600)} h`;
}
