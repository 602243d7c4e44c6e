import path from 'node:path';
import { afterAll } from 'vitest';
import { openSqliteEventStore } from '../../src/eventstore/sqlite.ts';
import { makeTempDir } from '../support/temp-dir.ts';
import { describeEventStoreConformance } from './conformance.ts';

const temp = makeTempDir();
afterAll(() => temp.remove());

describeEventStoreConformance('embedded SQLite', async () =>
  openSqliteEventStore({ file: path.join(temp.dir, 'events.sqlite') }),
);
