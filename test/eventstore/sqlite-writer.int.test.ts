import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StreamAppend } from '../../src/application/ports/event-store.ts';
import { SqliteWriter } from '../../src/eventstore/sqlite-writer.ts';
import { makeTempDir } from '../support/temp-dir.ts';

/** The writer thread's failures reach the appends waiting on it: none is left pending. */
let temp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  temp = makeTempDir();
});
afterEach(() => temp.remove());

const append: StreamAppend = {
  streamName: 's',
  events: [
    {
      type: 'Tested',
      data: {},
      metadata: { eventId: 'e', occurredAt: 't', correlationId: 'c', schemaVersion: 1 },
    },
  ],
  expectedRevision: 'any',
};

describe('embedded store writer thread', () => {
  it('rejects the appends waiting on a writer that cannot open its file, and every append after', async () => {
    writeFileSync(path.join(temp.dir, 'a-file'), '');
    const commits: number[] = [];
    const writer = new SqliteWriter({
      file: path.join(temp.dir, 'a-file', 'events.sqlite'), // its directory cannot be made
      failpoint: undefined,
      onCommit: () => commits.push(1),
    });
    const first = await writer.append([append]).catch((error: unknown) => error);
    expect(String(first)).toMatch(/EEXIST: file already exists, mkdir/);
    await expect(writer.append([append])).rejects.toBe(first);
    await writer.close();
    expect(commits).toEqual([]);
  });
});
