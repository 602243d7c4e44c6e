import { describe, expect, it } from 'vitest';
import { parseCommandLine } from '../../src/cli/command-line.ts';
import { UsageError } from '../../src/cli/usage-error.ts';

const OPTIONS = { from: { type: 'string' }, follow: { type: 'boolean' } } as const;

describe('parseCommandLine', () => {
  it('reads the flags as node:util parseArgs does', () => {
    expect(parseCommandLine({ args: ['--from', '7', '--follow'], options: OPTIONS }).values).toEqual({
      from: '7',
      follow: true,
    });
  });

  it("keeps the last value of a flag given twice, so that a wrapper's defaults can be overridden", () => {
    expect(parseCommandLine({ args: ['--from', '7', '--from=9'], options: OPTIONS }).values).toEqual({
      from: '9',
    });
  });

  it.each([[['--from', '']], [['--from=']], [['--from', '  ']]])(
    'refuses an empty value (%j) as a mistake rather than a fallback',
    (args) => {
      expect(() => parseCommandLine({ args, options: OPTIONS })).toThrow(
        new UsageError('--from is empty: give it a value'),
      );
    },
  );

  it('names what leaving an empty flag out would use, when the command says', () => {
    expect(() =>
      parseCommandLine({ args: ['--from', ''], options: OPTIONS }, (flag) =>
        flag === 'from' ? 'the first event' : undefined,
      ),
    ).toThrow(new UsageError('--from is empty: give it a value, or leave it out to use the first event'));
  });
});
