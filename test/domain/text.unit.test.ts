import { describe, expect, it } from 'vitest';
import { validateFreeText } from '../../src/domain/text.ts';
import { ValidationError } from '../../src/shared/errors.ts';

function refusal(value: unknown, maxLength = 20): { field: string | undefined; message: string } {
  try {
    validateFreeText(value, 'note', maxLength);
  } catch (error) {
    if (error instanceof ValidationError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('validateFreeText', () => {
  it('returns text as given when it is already in NFC', () => {
    expect(validateFreeText('Café au lait 🐕‍🦺', 'note', 20)).toBe('Café au lait 🐕‍🦺');
  });

  it('normalises to NFC: a decomposed é becomes the one precomposed code point', () => {
    expect(validateFreeText('Cafe\u0301', 'note', 20)).toBe('Caf\u00e9');
  });

  it('counts the maximum in code points after normalising', () => {
    expect(validateFreeText('e\u0301'.repeat(5), 'note', 5)).toBe('\u00e9'.repeat(5));
    expect(refusal('😀'.repeat(6), 5)).toEqual({
      field: 'note',
      message: 'note must be at most 5 characters.',
    });
  });

  it('says so when normalising lengthens text past the maximum that it kept to as sent', () => {
    expect(refusal('\u0958'.repeat(5), 5)).toEqual({
      field: 'note',
      message:
        'note must be at most 5 characters; normalised to NFC, as it is stored, it has 10 (5 as sent).',
    });
  });

  it('refuses what is not a string', () => {
    expect(refusal(42)).toEqual({ field: 'note', message: 'note must be text.' });
  });

  it('refuses NUL, saying so and where', () => {
    expect(refusal('ab\u0000c')).toEqual({
      field: 'note',
      message: 'note must not contain NUL (U+0000 at character 3).',
    });
  });

  it.each([
    ['a line feed', 'a\nb', 'U+000A at character 2'],
    ['an escape', 'x\u001b[31m', 'U+001B at character 2'],
    ['a delete', 'ab\u007f', 'U+007F at character 3'],
    ['a C1 control', '\u0085next', 'U+0085 at character 1'],
  ])('refuses %s as a control character, saying which and where', (_name, value, where) => {
    expect(refusal(value).message).toBe(`note must not contain control characters (${where}).`);
  });

  it.each([
    ['\u202e', 'U+202E RIGHT-TO-LEFT OVERRIDE'],
    ['\u202d', 'U+202D LEFT-TO-RIGHT OVERRIDE'],
    ['\u202a', 'U+202A LEFT-TO-RIGHT EMBEDDING'],
    ['\u202b', 'U+202B RIGHT-TO-LEFT EMBEDDING'],
    ['\u202c', 'U+202C POP DIRECTIONAL FORMATTING'],
    ['\u2066', 'U+2066 LEFT-TO-RIGHT ISOLATE'],
    ['\u2067', 'U+2067 RIGHT-TO-LEFT ISOLATE'],
    ['\u2068', 'U+2068 FIRST STRONG ISOLATE'],
    ['\u2069', 'U+2069 POP DIRECTIONAL ISOLATE'],
  ])('refuses the bidirectional formatting character %j, naming it', (character, named) => {
    expect(refusal(`Rex${character}gpj.exe`).message).toBe(
      `note must not contain bidirectional overrides or isolates (${named} at character 4).`,
    );
  });

  it('accepts right-to-left text and its marks, which only overrides and isolates can abuse', () => {
    expect(validateFreeText('שלום\u200f Rex', 'note', 20)).toBe('שלום\u200f Rex');
  });

  it('refuses an unpaired surrogate, which no character encoding can carry', () => {
    expect(refusal('Rex\ud800').message).toBe(
      'note must be well-formed Unicode (an unpaired surrogate at character 4).',
    );
  });

  it('says where an unpaired surrogate is when text follows it', () => {
    expect(refusal('Re\udc00x😀').message).toBe(
      'note must be well-formed Unicode (an unpaired surrogate at character 3).',
    );
  });
});
