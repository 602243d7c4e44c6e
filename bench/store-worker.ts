import { randomUUID } from 'node:crypto';
import { pino } from 'pino';
import { petListProjection, type PetListState } from '../projections/pet-list.ts';
import { petStreamName } from '../src/domain/pets.ts';
import { openSqliteEventStore } from '../src/eventstore/sqlite.ts';
import { ProjectionRunner } from '../src/read-models/runner.ts';
import { eventsFile, seededPet } from './seed.ts';

/**
 * Store-side measurements, each in a process of its own (started by bench/store.ts on the server
 * core) so that one measurement's heap and JIT state do not leak into the next. Prints one JSON line.
 *
 *   node --expose-gc bench/store-worker.ts rebuild <dataDir>
 *   node bench/store-worker.ts appends <dataDir> <writers> <seconds>
 */

export type RebuildFigures = {
  events: number;
  ms: number;
  pets: number;
  heapBytesPerPet: number;
  rssBytesPerPet: number;
};
export type AppendFigures = {
  writers: number;
  appends: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
};

const [mode, dataDir, ...rest] = process.argv.slice(2);

function settledMemory(): { heap: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  gc();
  gc();
  const { heapUsed, rss } = process.memoryUsage();
  return { heap: heapUsed, rss };
}

/** The read model rebuilt from position 0 by the service's own runner, with no snapshot to start from. */
async function rebuild(dir: string): Promise<RebuildFigures> {
  const store = openSqliteEventStore({ file: eventsFile(dir) });
  const events = Number((await store.headPosition()) ?? 0n);
  const runner = new ProjectionRunner<PetListState>({
    store,
    projection: petListProjection,
    logger: pino({ level: 'silent' }),
  });
  const before = settledMemory();
  const started = performance.now();
  await runner.start();
  const ms = performance.now() - started;
  await runner.stop();
  const after = settledMemory();
  const pets = runner.state.ids.length;
  await store.close();
  return {
    events,
    ms,
    pets,
    heapBytesPerPet: (after.heap - before.heap) / pets,
    rssBytesPerPet: (after.rss - before.rss) / pets,
  };
}

/** `writers` loops, each appending one PetCreated at a time and waiting for it to be durable. */
async function appends(dir: string, writers: number, seconds: number): Promise<AppendFigures> {
  const store = openSqliteEventStore({ file: eventsFile(dir) });
  const latencies: number[] = [];
  let nextId = 1;
  const deadline = performance.now() + seconds * 1000;
  const writer = async () => {
    while (performance.now() < deadline) {
      const id = nextId++;
      const metadata = {
        eventId: randomUUID(),
        occurredAt: new Date().toISOString(),
        correlationId: 'bench',
        schemaVersion: 1,
      };
      const started = performance.now();
      await store.appendToStream(petStreamName(id), [{ type: 'PetCreated', data: seededPet(id), metadata }], {
        expectedRevision: 'no_stream',
      });
      latencies.push(performance.now() - started);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, writer));
  const elapsed = (performance.now() - started) / 1000;
  await store.close();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { writers, appends: latencies.length, seconds: elapsed, p50Ms: at(0.5), p99Ms: at(0.99) };
}

if (mode === 'rebuild' && dataDir !== undefined) {
  process.stdout.write(`${JSON.stringify(await rebuild(dataDir))}\n`);
} else if (mode === 'appends' && dataDir !== undefined) {
  process.stdout.write(`${JSON.stringify(await appends(dataDir, Number(rest[0]), Number(rest[1])))}\n`);
} else {
  process.stderr.write('usage: store-worker.ts rebuild <dataDir> | appends <dataDir> <writers> <seconds>\n');
  process.exit(2);
}
