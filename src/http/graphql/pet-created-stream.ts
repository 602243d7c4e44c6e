import { FixedBuffer, Repeater } from 'graphql-yoga';
import type { Application } from '../../application/index.ts';
import type { Pet } from '../../domain/pets.ts';
import { AppError } from '../../errors.ts';

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
  return new Repeater<Pet>(async (push, stop) => {
    if (closing.aborted) {
      stop();
      return;
    }
    const end = () => stop();
    closing.addEventListener('abort', end, { once: true });
    const unsubscribe = application.onPetCreated((pet) => {
      try {
        void push(pet);
      } catch {
        stop(
          new AppError(
            'subscriber_too_slow',
            503,
            `This subscriber fell more than ${PET_CREATED_BUFFER} pets behind; subscribe again.`,
          ),
        );
      }
    });
    await stop;
    closing.removeEventListener('abort', end);
    unsubscribe();
  }, new FixedBuffer(PET_CREATED_BUFFER));
}
