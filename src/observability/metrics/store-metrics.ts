import { StoreUnavailableError, WrongExpectedRevisionError } from '../../application/ports/event-store.ts';
import type { AppendObserver } from '../observed-store.ts';
import type { Metrics } from './registry.ts';

/** Times every append until it is durable, and counts its events. */
export function appendMetrics(metrics: Metrics): AppendObserver {
  return async (events, append) => {
    const stop = metrics.appendDuration.startTimer();
    metrics.appendEvents.observe(events.length);
    try {
      const result = await append(events);
      stop({ result: 'ok' });
      return result;
    } catch (error) {
      stop({ result: appendFailure(error) });
      throw error;
    }
  };
}

function appendFailure(error: unknown): 'wrong_expected_revision' | 'unavailable' | 'error' {
  if (error instanceof WrongExpectedRevisionError) return 'wrong_expected_revision';
  if (error instanceof StoreUnavailableError) return 'unavailable';
  return 'error';
}
