import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/shared/errors.ts';

describe('AppError', () => {
  it('captures no stack trace: a rejected request pays only for its answer', () => {
    const error = new ValidationError('name must not be empty.', 'name');
    expect(error.stack).toBe('ValidationError: name must not be empty.');
  });

  it('leaves the stack trace limit of every other error as it was', () => {
    const before = Error.stackTraceLimit;
    new NotFoundError('Pet 7 does not exist.');
    expect(Error.stackTraceLimit).toBe(before);
    expect(new Error('unexpected').stack).toContain('\n    at ');
  });

  it('keeps its name, code, status and message', () => {
    const error = new NotFoundError('Pet 7 does not exist.');
    expect([error.name, error.code, error.status, error.message]).toEqual([
      'NotFoundError',
      'not_found',
      404,
      'Pet 7 does not exist.',
    ]);
  });
});
