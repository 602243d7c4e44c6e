import { FixedBuffer, Repeater } from 'graphql-yoga';
import type { Application } from '../../application/index.ts';
import type { Pet } from '../../domain/pets.ts';
import { SubscriberTooSlowError } from '../../shared/errors.ts';

/** How far a subscriber may fall behind before its stream is ended rather than grow without bound. */
export const PET_CREATED_BUFFER = 1000;

/**
 * Pets created from now on, as an async iterator that unsubscribes when the client goes away. It
 * ends when `closing` aborts, so that the response completes and the server can close.
 */
export function petCreatedStream(
  application: Pick<Application, 'onPetCreated'>,
  closing: AbortSignal,
): AsyncIterableIterator<Pet> {
  const buffer = new FixedBuffer(PET_CREATED_BUFFER);
  return new Repeater<Pet>(async (push, stop) => {
    if (closing.aborted) {
      stop();
      return;
    }
    const end = () => stop();
    closing.addEventListener('abort', end, { once: true });
    const unsubscribe = application.onPetCreated((pet) => {
      // Checked here: past a full buffer, Repeater queues up to 1024 more pushes before it throws.
      if (buffer.full) stop(new SubscriberTooSlowError(PET_CREATED_BUFFER));
      else void push(pet);
    });
    await stop;
    closing.removeEventListener('abort', end);
    unsubscribe();
  }, buffer);
}
