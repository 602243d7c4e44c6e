import path from 'node:path';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { parseAsOf, refusePastTheStore } from '../application/queries/time-travel.ts';
import { loadConfig } from '../config.ts';
import { validateStatus } from '../domain/pet-rules.ts';
import { isAppError } from '../shared/errors.ts';
import { SqliteTemporalIndex } from '../read-models/temporal-index.ts';
import { openCliStore } from './store.ts';
import { UsageError } from './usage-error.ts';

const PAGE = 1000;

/** `petstore catalogue --as-of …`: the catalogue of the past, as JSON lines, for auditors' tools. */
export async function run(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      'as-of': { type: 'string' },
      status: { type: 'string' },
    },
  });
  if (values['as-of'] === undefined) throw new UsageError('--as-of is required');
  let at;
  let status;
  try {
    at = parseAsOf(values['as-of']);
    status = values.status === undefined ? undefined : validateStatus(values.status);
  } catch (error) {
    if (isAppError(error)) throw new UsageError(error.message.replace('asOf', '--as-of'));
    throw error;
  }
  const config = loadConfig(process.env);
  const store = await openCliStore(config, 'catalogue', 'must-exist');
  const index = new SqliteTemporalIndex(
    path.join(config.dataDir, 'temporal-index.sqlite'),
    store,
    pino({ level: 'silent' }),
  );
  try {
    const head = await store.headPosition();
    refusePastTheStore(at, head, '--as-of');
    index.start();
    if (head !== undefined) await index.waitFor(head);
    let after: number | undefined;
    for (;;) {
      const { pets, hasMore } = index.pageAsOf({
        at,
        limit: PAGE,
        ...(status !== undefined && { status }),
        ...(after !== undefined && { after }),
      });
      if (
        pets.length > 0 &&
        !process.stdout.write(`${pets.map((pet) => JSON.stringify(pet)).join('\n')}\n`)
      ) {
        await new Promise((resolve) => process.stdout.once('drain', resolve));
      }
      if (!hasMore) break;
      after = pets.at(-1)!.id;
    }
  } finally {
    await index.stop();
    await store.close();
  }
}
