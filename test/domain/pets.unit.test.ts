import { describe, expect, it } from 'vitest';
import { decideCreatePet } from '../../src/domain/pets.ts';
import { PET_NAME_MAX_LENGTH, validateNewPet } from '../../src/domain/pet-rules.ts';
import { ValidationError } from '../../src/shared/errors.ts';

function validationFailure(input: unknown): { field: string | undefined; message: string } {
  try {
    validateNewPet(input);
  } catch (error) {
    if (error instanceof ValidationError) return { field: error.field, message: error.message };
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('validateNewPet', () => {
  it('accepts a pet with name, categoryId and status', () => {
    expect(validateNewPet({ name: 'Rex', categoryId: 7, status: 'pending' })).toEqual({
      name: 'Rex',
      categoryId: 7,
      status: 'pending',
    });
  });

  it('invents no status when none is given', () => {
    expect(validateNewPet({ name: 'Rex', categoryId: 7 })).toStrictEqual({ name: 'Rex', categoryId: 7 });
  });

  it.each([
    [{ categoryId: 1 }, 'name'],
    [{ name: 42, categoryId: 1 }, 'name'],
    [{ name: '', categoryId: 1 }, 'name'],
    [{ name: ' \t\n', categoryId: 1 }, 'name'],
    [{ name: 'x'.repeat(PET_NAME_MAX_LENGTH + 1), categoryId: 1 }, 'name'],
    [{ name: 'Rex' }, 'categoryId'],
    [{ name: 'Rex', categoryId: 0 }, 'categoryId'],
    [{ name: 'Rex', categoryId: -3 }, 'categoryId'],
    [{ name: 'Rex', categoryId: 1.5 }, 'categoryId'],
    [{ name: 'Rex', categoryId: '1' }, 'categoryId'],
    [{ name: 'Rex', categoryId: 2 ** 53 }, 'categoryId'],
    [{ name: 'Rex', categoryId: 1, status: 'lost' }, 'status'],
    [{ name: 'Rex', categoryId: 1, status: null }, 'status'],
    [{ name: 'Rex', categoryId: 1, id: 5 }, 'id'],
    [{ name: 'Rex', categoryId: 1, colour: 'red' }, 'colour'],
  ])('rejects %j naming the field %s', (input, field) => {
    expect(validationFailure(input).field).toBe(field);
  });

  it.each([[null], [[]], ['Rex'], [3]])('rejects the non-object body %j', (input) => {
    expect(validationFailure(input).message).toBe('The body must be a JSON object with name and categoryId.');
  });

  it('counts the name limit in characters, not UTF-16 units', () => {
    const name = '🐈'.repeat(PET_NAME_MAX_LENGTH);
    expect(validateNewPet({ name, categoryId: 1 }).name).toBe(name);
  });

  it.each([
    ['a zero-width space', '\u200b'],
    ['a word joiner between spaces', ' \u2060 '],
    ['a zero-width joiner and a variation selector', '\u200d\ufe0f'],
    ['a no-break space', '\u00a0'],
    ['a braille pattern blank', '\u2800'],
    ['the interlinear annotation marks', '\ufff9\ufffa\ufffb'],
    ['an object replacement character', '\ufffc'],
    ['a noncharacter', '\ufdd0'],
    ['combining marks on nothing', '\u0301\u0308'],
  ])('refuses a name that shows nothing: %s', (_what, name) => {
    expect(validationFailure({ name, categoryId: 1 })).toEqual({
      field: 'name',
      message: 'name must not be empty.',
    });
  });

  it('accepts a name with a combining mark on a letter, and one in a script written with marks', () => {
    expect(validateNewPet({ name: 'Ame\u0301lie', categoryId: 1 }).name).toBe('Amélie');
    expect(validateNewPet({ name: 'क्ष', categoryId: 1 }).name).toBe('क्ष');
  });

  it('accepts a name with a zero-width joiner between visible characters', () => {
    expect(validateNewPet({ name: '\u{1f415}\u200d\u{1f9ba}', categoryId: 1 }).name).toBe('🐕‍🦺');
  });

  it('stores a name in NFC, so that one name has one spelling', () => {
    expect(validateNewPet({ name: 'Zoe\u0301', categoryId: 1 }).name).toBe('Zo\u00e9');
  });

  it.each([
    ['Rex\u0000', 'name must not contain NUL (U+0000 at character 4).'],
    ['Rex\u001b[2J', 'name must not contain control characters (U+001B at character 4).'],
    [
      'Rex\u202egpj.exe',
      'name must not contain bidirectional overrides or isolates (U+202E RIGHT-TO-LEFT OVERRIDE at character 4).',
    ],
  ])('refuses the name %j, saying which character and where', (name, message) => {
    expect(validationFailure({ name, categoryId: 1 })).toEqual({ field: 'name', message });
  });

  it('accepts the largest safe categoryId', () => {
    expect(validateNewPet({ name: 'Rex', categoryId: Number.MAX_SAFE_INTEGER }).categoryId).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});

describe('decideCreatePet', () => {
  it('decides PetCreated with the new id and the validated fields', () => {
    expect(decideCreatePet(validateNewPet({ name: 'Rex', categoryId: 7 }), 41)).toEqual({
      type: 'PetCreated',
      data: { id: 41, name: 'Rex', categoryId: 7 },
    });
  });
});
