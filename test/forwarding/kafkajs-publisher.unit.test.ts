import { describe, expect, it } from 'vitest';
import { parseCheckpoint } from '../../src/forwarding/kafkajs-publisher.ts';

describe('the checkpoint in the offset commit’s metadata', () => {
  it('reads position and owner', () => {
    expect(parseCheckpoint('{"position":"170141183460469231722463931679029329919","owner":"f-1"}')).toEqual({
      position: 170141183460469231722463931679029329919n,
      owner: 'f-1',
    });
  });

  it('reads the event at the position: its id, stream and revision', () => {
    expect(
      parseCheckpoint('{"position":"42","eventId":"e-42","stream":"pet-7","revision":"3","owner":"f-1"}'),
    ).toEqual({ position: 42n, event: { id: 'e-42', stream: 'pet-7', revision: 3n }, owner: 'f-1' });
  });

  it('reads an owner that signed before any event was published', () => {
    expect(parseCheckpoint('{"owner":"f-1"}')).toEqual({ position: undefined, owner: 'f-1' });
  });

  it('reads the bare decimal position older releases wrote, with no owner', () => {
    expect(parseCheckpoint('42')).toEqual({ position: 42n, owner: undefined });
  });

  it('reads no metadata as no checkpoint', () => {
    expect(parseCheckpoint(null)).toEqual({ position: undefined, owner: undefined });
    expect(parseCheckpoint('')).toEqual({ position: undefined, owner: undefined });
  });
});
