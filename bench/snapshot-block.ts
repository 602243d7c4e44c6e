import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { petListProjection } from '../projections/pet-list.ts';
import type { RecordedEvent } from '../src/application/ports/event-store.ts';
import { ReadModel } from '../src/read-models/read-model.ts';
import { snapshotDirectory } from '../src/read-models/snapshot-file.ts';
import { seededPet } from './seed.ts';

/**
 * `node bench/snapshot-block.ts [--pets 800000] [--runs 3]`: how long one read-model snapshot holds
 * the event loop (issue 16 item 2), measured in process, away from HTTP and its noise: the pet-list
 * read model of `--pets` pets saves its snapshot while a ticker notes every gap between turns of
 * the event loop. Reports the longest gap and the total time of the save, per run.
 */

const { values } = parseArgs({
  options: { pets: { type: 'string', default: '800000' }, runs: { type: 'string', default: '3' } },
});
const pets = Number(values.pets);
const dir = mkdtempSync(path.join(tmpdir(), 'petstore-bench-block-'));
try {
  const readModel = new ReadModel(petListProjection, snapshotDirectory(dir), pino({ level: 'silent' }));
  const batch: RecordedEvent[] = [];
  for (let id = 1; id <= pets; id++) {
    const metadata = { eventId: randomUUID(), occurredAt: '', correlationId: '', schemaVersion: 1 };
    batch.push({
      type: 'PetCreated',
      data: seededPet(id),
      streamName: `pet-${id}`,
      revision: 0n,
      position: BigInt(id),
      metadata,
    });
    if (batch.length === 10_000 || id === pets) readModel.apply(batch.splice(0), undefined);
  }
  for (let run = 1; run <= Number(values.runs); run++) {
    readModel.apply([{ ...batch0(pets + run) }], undefined); // one more event: something to save
    const gaps = ticker();
    const started = performance.now();
    await readModel.saveSnapshot();
    const totalMs = performance.now() - started;
    const longestGapMs = gaps.stop();
    process.stdout.write(
      `${JSON.stringify({ pets, run, longestGapMs: round(longestGapMs), totalMs: round(totalMs) })}\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function batch0(position: number): RecordedEvent {
  const metadata = { eventId: randomUUID(), occurredAt: '', correlationId: '', schemaVersion: 1 };
  return {
    type: 'PetIdBlockReserved',
    data: {},
    streamName: 'pet-ids',
    revision: 0n,
    position: BigInt(position),
    metadata,
  };
}

/** The longest time between two turns of the event loop from now until stop(). */
function ticker(): { stop(): number } {
  let last = performance.now();
  let longest = 0;
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    stop() {
      running = false;
      return Math.max(longest, performance.now() - last);
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
