import { expect, it } from 'vitest';
import {
  StoreUnavailableError,
  WrongExpectedRevisionError,
} from '../../src/application/ports/event-store.ts';
import { appendMetrics, createMetrics } from '../../src/observability/metrics/index.ts';

/** The append histogram's `result` label: what operators alert on when the store refuses writes. */

it('counts an append the store refused for now as result "unavailable", apart from conflicts and faults', async () => {
  const metrics = createMetrics();
  const observe = appendMetrics(metrics);
  const failing = (error: Error) => () => Promise.reject(error);
  const refusals = [
    new StoreUnavailableError('disk_full', 'the disk holding /data is full'),
    new WrongExpectedRevisionError('pet-1', 'no_stream', 0n),
    new Error('database disk image is malformed'),
  ];
  for (const error of refusals) await observe([], failing(error)).catch(() => {});
  await observe([], async () => 'ok');
  const counts = (await metrics.appendDuration.get()).values
    .filter((sample) => sample.metricName === 'petstore_eventstore_append_duration_seconds_count')
    .map((sample) => [sample.labels.result, sample.value]);
  expect(counts.sort()).toEqual([
    ['error', 1],
    ['ok', 1],
    ['unavailable', 1],
    ['wrong_expected_revision', 1],
  ]);
});
