import { expect, it } from 'vitest';
import { busyShares } from '../../bench/report.ts';

it('gives a phase CPU time as whole percents of its wall time, every thread then the main thread', () => {
  expect(busyShares({ all: 0.9149, main: 0.6751 })).toBe('91% (main 68%)');
});

it('shows more than 100% when threads ran on several cores at once', () => {
  expect(busyShares({ all: 1.62, main: 0.97 })).toBe('162% (main 97%)');
});
