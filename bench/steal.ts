import { readFileSync } from 'node:fs';

/**
 * Steal: time the hypervisor gave this virtual machine's CPUs to something else while they had
 * work to run (the eighth column of each `cpuN` line of /proc/stat). No process here causes it or
 * sees it: a server whose core lost a second's tenth this way answers late, and the latencies and
 * rates count that as the service's. The bench records it so that a slow round can be told apart
 * from a slow service.
 */

export type StealFigures = {
  /** Share of the CPU's time over the whole window. */
  readonly share: number;
  /** The largest share in any one-second sample of the window (the window's share when shorter). */
  readonly worstSecond: number;
};

type Counters = { readonly steal: number; readonly total: number };

/** Per-CPU counters (ticks), by CPU number; empty where /proc/stat is not there. */
function readCounters(): Map<number, Counters> {
  const counters = new Map<number, Counters>();
  let text: string;
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return counters;
  }
  for (const line of text.split('\n')) {
    const match = /^cpu(\d+) (.*)$/.exec(line);
    if (match === null) continue;
    // user nice system idle iowait irq softirq steal (guest time is already in user and nice)
    const fields = match[2]!.trim().split(/\s+/).slice(0, 8).map(Number);
    counters.set(Number(match[1]), {
      steal: fields[7] ?? 0,
      total: fields.reduce((sum, n) => sum + n, 0),
    });
  }
  return counters;
}

function shareBetween(before: Counters | undefined, after: Counters | undefined): number {
  if (before === undefined || after === undefined) return 0;
  const total = after.total - before.total;
  return total <= 0 ? 0 : (after.steal - before.steal) / total;
}

export type StealWatch = {
  /** Figures by CPU number, for every CPU /proc/stat lists; none off Linux. */
  stop(): Map<number, StealFigures>;
};

/** Samples /proc/stat once a second until `stop`: one read, no measurable load on this process. */
export function watchSteal(): StealWatch {
  const first = readCounters();
  const worst = new Map<number, number>();
  let previous = first;
  const sample = () => {
    const now = readCounters();
    for (const [cpu, counters] of now)
      worst.set(cpu, Math.max(worst.get(cpu) ?? 0, shareBetween(previous.get(cpu), counters)));
    previous = now;
  };
  const timer = setInterval(sample, 1000);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      const last = readCounters();
      const figures = new Map<number, StealFigures>();
      for (const [cpu, counters] of last) {
        const share = shareBetween(first.get(cpu), counters);
        // The tail since the last sample counts only when it is the whole window.
        const worstSecond = worst.has(cpu) ? worst.get(cpu)! : share;
        figures.set(cpu, { share, worstSecond });
      }
      return figures;
    },
  };
}

/** The figures of the CPUs a taskset list names ("0", "1-3", "0,2"); every CPU when undefined. */
export function stealOn(figures: Map<number, StealFigures>, cpuList: string | undefined): StealFigures {
  const cpus = cpuList === undefined ? [...figures.keys()] : parseCpuList(cpuList);
  const chosen = cpus.map((cpu) => figures.get(cpu)).filter((f) => f !== undefined);
  if (chosen.length === 0) return { share: 0, worstSecond: 0 };
  return {
    share: chosen.reduce((sum, f) => sum + f.share, 0) / chosen.length,
    worstSecond: Math.max(...chosen.map((f) => f.worstSecond)),
  };
}

function parseCpuList(list: string): number[] {
  return list.split(',').flatMap((part) => {
    const [from, to] = part.split('-').map(Number);
    if (from === undefined || Number.isNaN(from)) return [];
    const last = to === undefined || Number.isNaN(to) ? from : to;
    return Array.from({ length: last - from + 1 }, (_, i) => from + i);
  });
}
