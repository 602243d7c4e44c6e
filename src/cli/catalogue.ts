import path from 'node:path';
import { type Logger, pino } from 'pino';
import { parseAsOf, refusePastTheStore } from '../application/queries/time-travel.ts';
import { loadConfig } from '../config.ts';
import { validateStatus } from '../domain/pet-rules.ts';
import { isAppError } from '../shared/errors.ts';
import { openTemporalIndex } from '../read-models/temporal-index-file.ts';
import { parseCommandLine } from './command-line.ts';
import { openCliStore } from './store.ts';
import { UsageError } from './usage-error.ts';

const PAGE = 1000;

/** `petstore catalogue --as-of …`: the catalogue of the past, as JSON lines, for auditors' tools. */
export async function run(args: string[]): Promise<void> {
  const { values } = parseCommandLine({
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
  let index;
  try {
    index = openTemporalIndex(path.join(config.dataDir, 'temporal-index.sqlite'), store, warnings());
  } catch (error) {
    await store.close();
    throw error;
  }
  try {
    const head = await store.headPosition();
    refusePastTheStore(at, head, '--as-of');
    index.start();
    if (head !== undefined) await index.waitFor(head);
    let after: number | undefined;
    for (;;) {
      const { pets, hasMore, scannedTo } = index.pageAsOf({
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
      after = scannedTo ?? pets.at(-1)!.id;
    }
  } finally {
    await index.stop();
    await store.close();
  }
}

/**
 * The index's warnings (a damaged file set aside) as lines on stderr. Its errors (a subscription
 * that failed and is retried) stay quiet: a failure that stops the catalogue is reported once, by
 * the command.
 */
function warnings(): Logger {
  const WARN = 40;
  const stderr = {
    write(line: string) {
      const { level, msg } = JSON.parse(line) as { level: number; msg: string };
      if (level === WARN) process.stderr.write(`petstore catalogue: ${msg}\n`);
    },
  };
  return pino({ level: 'warn', base: null, timestamp: false }, stderr);
}
