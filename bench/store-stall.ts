import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { petStreamName } from '../src/domain/pets.ts';
import { openSqliteEventStore } from '../src/eventstore/sqlite.ts';
import { eventsFile, seededPet } from './seed.ts';

/**
 * What durable appends cost the event loop that serves reads, at the store level (no HTTP, so the
 * figures move less with the load of a shared machine): appends at a fixed rate, open loop, while
 * the loop's delay is sampled every millisecond. Reports the loop delay alone and with the writes,
 * the main thread's CPU time and event-loop busy time per append, the CPU time of every thread
 * (main and writer) per append, and the appends' latency. CPU times barely move with the machine's
 * load; latencies and delays do.
 *
 *   node bench/store-stall.ts [--rate 2000] [--seconds 10]
 *   node bench/store-stall.ts --writers 64 [--seconds 10]   (closed loop: as fast as it goes)
 */

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '10' },
    writers: { type: 'string' },
  },
});
const rate = Number(values.rate);
const seconds = Number(values.seconds);
const writers = values.writers === undefined ? undefined : Number(values.writers);

type LoopFigures = { p50: number; p99: number; p999: number; max: number };

async function loopDelayDuring(work: () => Promise<void>): Promise<LoopFigures> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await work();
  histogram.disable();
  const ms = (ns: number) => ns / 1e6;
  return {
    p50: ms(histogram.percentile(50)),
    p99: ms(histogram.percentile(99)),
    p999: ms(histogram.percentile(99.9)),
    max: ms(histogram.max),
  };
}

const dir = mkdtempSync(path.join(tmpdir(), 'petstore-store-stall-'));
const store = openSqliteEventStore({ file: eventsFile(dir) });
try {
  let nextId = 1;
  const latencies: number[] = [];
  const append = async () => {
    const id = nextId++;
    const metadata = {
      eventId: randomUUID(),
      occurredAt: new Date().toISOString(),
      correlationId: 'b',
      schemaVersion: 1,
    };
    const started = performance.now();
    await store.appendToStream(petStreamName(id), [{ type: 'PetCreated', data: seededPet(id), metadata }], {
      expectedRevision: 'no_stream',
    });
    latencies.push(performance.now() - started);
  };
  const appendsFor = async (ms: number) => {
    const start = performance.now();
    if (writers !== undefined) {
      const writer = async () => {
        while (performance.now() - start < ms) await append();
      };
      await Promise.all(Array.from({ length: writers }, writer));
      return;
    }
    const pending: Promise<void>[] = [];
    for (let i = 0; i < (rate * ms) / 1000; i++) {
      const wait = start + (i * 1000) / rate - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      pending.push(append());
    }
    await Promise.all(pending);
  };
  await appendsFor(2000); // warm-up: JIT, the writer's start, the file's first pages
  latencies.length = 0;
  const idle = await loopDelayDuring(() => new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  const cpuBefore = process.threadCpuUsage();
  const processCpuBefore = process.cpuUsage();
  const eluBefore = performance.eventLoopUtilization();
  const writing = await loopDelayDuring(() => appendsFor(seconds * 1000));
  const cpu = process.threadCpuUsage(cpuBefore);
  const processCpu = process.cpuUsage(processCpuBefore);
  const elu = performance.eventLoopUtilization(eluBefore);
  const count = latencies.length;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(count - 1, Math.ceil(q * count) - 1)]!;
  const f = (v: number) => v.toFixed(2);
  const loop = (l: LoopFigures) => `p50 ${f(l.p50)} p99 ${f(l.p99)} p99.9 ${f(l.p999)} max ${f(l.max)} ms`;
  process.stdout.write(
    [
      `appends: ${count} ${writers === undefined ? `at ${rate}/s` : `by ${writers} writers`} over ${seconds} s; latency p50 ${f(at(0.5))} p99 ${f(at(0.99))} max ${f(at(1))} ms`,
      `event-loop delay, idle:        ${loop(idle)}`,
      `event-loop delay, with writes: ${loop(writing)}`,
      `per append: main thread ${f((cpu.user + cpu.system) / count)} µs CPU and ${f((elu.active * 1000) / count)} µs busy; every thread ${f((processCpu.user + processCpu.system) / count)} µs CPU`,
    ].join('\n') + '\n',
  );
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
