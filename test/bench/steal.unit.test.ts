import { cpus } from 'node:os';
import { expect, it } from 'vitest';
import { type StealFigures, stealOn, watchSteal } from '../../bench/steal.ts';

const byCpu = new Map<number, StealFigures>([
  [0, { share: 0.02, worstSecond: 0.3 }],
  [1, { share: 0.04, worstSecond: 0.1 }],
  [2, { share: 0.06, worstSecond: 0.05 }],
]);

it('is the figure of the one CPU a taskset list names', () => {
  expect(stealOn(byCpu, '0')).toEqual({ share: 0.02, worstSecond: 0.3 });
});

it('averages the shares of a CPU range and keeps the worst second of any of them', () => {
  const figures = stealOn(byCpu, '1-2');
  expect(figures.share).toBeCloseTo(0.05);
  expect(figures.worstSecond).toBe(0.1);
});

it('reads a comma list of CPUs', () => {
  expect(stealOn(byCpu, '0,2').share).toBeCloseTo(0.04);
});

it('covers every CPU when nothing is pinned', () => {
  expect(stealOn(byCpu, undefined).share).toBeCloseTo(0.04);
});

it('is zero for CPUs it has no figures of', () => {
  expect(stealOn(byCpu, '7')).toEqual({ share: 0, worstSecond: 0 });
});

it.runIf(process.platform === 'linux')('watches every CPU of this machine, each a share of its time', () => {
  const figures = watchSteal().stop();
  expect([...figures.keys()].sort()).toEqual(cpus().map((_, cpu) => cpu));
  for (const { share, worstSecond } of figures.values()) {
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
    expect(worstSecond).toBe(share);
  }
});
