import { setTimeout as delay } from 'node:timers/promises';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { startService } from '../src/service.ts';
import { makeTempDir } from './support/temp-dir.ts';

/** The temporal index starts following the store only once `backgroundAfter` settles. */

const logger = pino({ level: 'silent' });
const context = { correlationId: 'test' };
let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.remove());

const config = () => loadConfig({ NODE_ENV: 'test', PETSTORE_DATA_DIR: temp.dir });

it('answers an as-of read only once the background work may start, then from the index', async () => {
  const listening = Promise.withResolvers<void>();
  const service = await startService(config(), logger, { backgroundAfter: listening.promise });
  try {
    const { pet } = await service.application.createPet({ name: 'Rex', categoryId: 1 }, context);
    const asOf = new Date(Date.now() + 1000).toISOString();
    const read = service.application.listPetsAsOf({ asOf }).then((page) => page.pets.map((p) => p.id));
    expect(await Promise.race([read, delay(300, 'still waiting')])).toBe('still waiting');
    listening.resolve();
    expect(await read).toEqual([pet.id]);
  } finally {
    await service.stop();
  }
});
