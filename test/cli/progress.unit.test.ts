import { describe, expect, it } from 'vitest';
import { progressReporter } from '../../src/cli/progress.ts';

/** A stream that is not a terminal (a pipe, a log), keeping what was written. */
function pipe() {
  const lines: string[] = [];
  const stream = { isTTY: false, write: (text: string) => lines.push(text) } as unknown as NodeJS.WriteStream;
  return { stream, lines };
}

const figures = (events: number) => ({
  events,
  position: String(events),
  target: '7',
  eventsPerSecond: 700,
  etaSeconds: null,
});

describe('progress without a terminal', () => {
  it('prints the last figures once when the last update printed them already', () => {
    const { stream, lines } = pipe();
    const progress = progressReporter(stream);
    progress.update('pet-list', figures(7));
    progress.done('pet-list', figures(7));
    expect(lines).toEqual(['pet-list: 100%, 7 events, 700 events/s\n']);
  });

  it('prints the last figures when they differ from the last line printed', () => {
    const { stream, lines } = pipe();
    const progress = progressReporter(stream);
    progress.update('pet-list', figures(3));
    progress.done('pet-list', figures(7));
    expect(lines).toEqual([
      'pet-list: 42%, 3 events, 700 events/s\n',
      'pet-list: 100%, 7 events, 700 events/s\n',
    ]);
  });
});
