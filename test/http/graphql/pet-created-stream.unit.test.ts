import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../src/domain/pets.ts';
import { SubscriberTooSlowError } from '../../../src/shared/errors.ts';
import { PET_CREATED_BUFFER, petCreatedStream } from '../../../src/http/graphql/pet-created-stream.ts';

/** An application whose pet feed the test drives by hand. */
function feed() {
  const listeners = new Set<(pet: Pet) => void>();
  return {
    listeners,
    onPetCreated(listener: (pet: Pet) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    create(id: number) {
      for (const listener of listeners) listener({ id, name: `Pet ${id}`, categoryId: 1 });
    },
  };
}

describe('petCreatedStream', () => {
  it(`ends with subscriber_too_slow once ${PET_CREATED_BUFFER} pets wait unread, after delivering them`, async () => {
    const application = feed();
    const stream = petCreatedStream(application, new AbortController().signal);
    const first = stream.next(); // starts the stream: it subscribes
    for (let id = 1; id <= PET_CREATED_BUFFER + 2; id++) application.create(id);
    const ids = [(await first).value.id];
    for (let i = 1; i < PET_CREATED_BUFFER + 1; i++) ids.push((await stream.next()).value.id);
    expect(ids).toEqual(Array.from({ length: PET_CREATED_BUFFER + 1 }, (_, i) => i + 1));
    const error = await stream.next().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(SubscriberTooSlowError);
    expect(error).toMatchObject({
      code: 'subscriber_too_slow',
      message: `This subscriber fell more than ${PET_CREATED_BUFFER} events behind; subscribe again.`,
    });
    expect(application.listeners.size).toBe(0);
  });

  it('ends when the server starts closing, and unsubscribes', async () => {
    const application = feed();
    const closing = new AbortController();
    const stream = petCreatedStream(application, closing.signal);
    const next = stream.next();
    application.create(1);
    expect((await next).value.id).toBe(1);
    closing.abort();
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(application.listeners.size).toBe(0);
  });
});
