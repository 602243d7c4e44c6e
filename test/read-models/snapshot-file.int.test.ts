import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeHeader, HEADER_BYTES, type SnapshotHeader } from '../../src/read-models/snapshot-format.ts';
import { snapshotDirectory, type SnapshotStore } from '../../src/read-models/snapshot-file.ts';
import { makeTempDir } from '../support/temp-dir.ts';

let temp: ReturnType<typeof makeTempDir>;
let snapshots: SnapshotStore;
const file = (name: string) => path.join(temp.dir, name);
const meta = { projection: 'pet-list', version: 3, checkpoint: '1234', checkpointEventId: 'event-1234' };
const parts = [{ ids: [1, 2], names: ['Rex', 'Tom'] }, { removed: [3, 1] }];

beforeEach(() => {
  temp = makeTempDir();
  snapshots = snapshotDirectory(temp.dir);
});
afterEach(() => temp.remove());

describe('a snapshot file', () => {
  it('holds its format, projection version, position and the SHA-256 of its body, and loads back', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    const body = bytes.subarray(HEADER_BYTES);
    expect(JSON.parse(bytes.subarray(0, HEADER_BYTES).toString())).toEqual({
      format: 'petstore-read-model-snapshot',
      formatVersion: 2,
      ...meta,
      savedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      bodyBytes: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
    });
    const loaded = await snapshots.load('pet-list');
    expect(loaded).toEqual({ ok: true, snapshot: expect.objectContaining(meta) });
    expect([...(loaded.ok ? loaded.snapshot.parts : [])]).toEqual(parts);
  });

  it('puts each part on a line of its own, and the body stays one JSON array', async () => {
    await snapshots.save(meta, parts);
    const body = readFileSync(file('pet-list.snapshot')).subarray(HEADER_BYTES).toString();
    expect(body).toBe('[{"ids":[1,2],"names":["Rex","Tom"]},\n{"removed":[3,1]}]');
    expect(JSON.parse(body)).toEqual(parts);
  });

  it('parses a part only when its iteration reaches it, and iterates again from the first', async () => {
    await snapshots.save(meta, [{ n: 1 }, { n: 2 }]);
    const bytes = readFileSync(file('pet-list.snapshot'));
    // A defect of the writer, behind a valid checksum: the second part is not JSON.
    const body = Buffer.from('[{"n":1},\n{"n":}]');
    writeFileSync(file('pet-list.snapshot'), withBody(bytes, body));
    const loaded = await snapshots.load('pet-list');
    if (!loaded.ok) throw new Error(loaded.reason);
    const reading = loaded.snapshot.parts[Symbol.iterator]();
    expect(reading.next()).toEqual({ done: false, value: { n: 1 } });
    expect(() => reading.next()).toThrow(SyntaxError);
    expect(loaded.snapshot.parts[Symbol.iterator]().next()).toEqual({ done: false, value: { n: 1 } });
  });

  it('loads a body written on one line, as files were before parts had lines of their own', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    writeFileSync(file('pet-list.snapshot'), withBody(bytes, Buffer.from(JSON.stringify(parts))));
    const loaded = await snapshots.load('pet-list');
    expect([...(loaded.ok ? loaded.snapshot.parts : [])]).toEqual(parts);
  });

  it('is refused when its body is not an array', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    writeFileSync(file('pet-list.snapshot'), withBody(bytes, Buffer.from('{"ids":[1]}')));
    expect(await snapshots.load('pet-list')).toEqual({
      ok: false,
      reason: 'the body is not an array of parts',
    });
  });

  it('is missing, not refused, when there is none', async () => {
    expect(await snapshots.load('pet-list')).toEqual({ ok: false, missing: true, reason: 'no snapshot' });
  });

  it('is refused, not thrown, when it cannot be read (a directory in its place)', async () => {
    mkdirSync(file('pet-list.snapshot'));
    expect(await snapshots.load('pet-list')).toEqual({
      ok: false,
      reason: 'the file cannot be read (EISDIR: illegal operation on a directory, read)',
    });
  });

  it('is refused, not thrown, when the snapshot directory is a file', async () => {
    const inAFile = snapshotDirectory(file('snapshots'));
    writeFileSync(file('snapshots'), 'not a directory');
    expect(await inAFile.load('pet-list')).toEqual({
      ok: false,
      reason: `the file cannot be read (ENOTDIR: not a directory, open '${file('snapshots')}/pet-list.snapshot')`,
    });
  });

  it('is refused when truncated', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    writeFileSync(file('pet-list.snapshot'), bytes.subarray(0, bytes.length - 5));
    expect(await snapshots.load('pet-list')).toEqual({
      ok: false,
      reason: `the body has ${bytes.length - HEADER_BYTES - 5} bytes where the header says ${bytes.length - HEADER_BYTES}: truncated`,
    });
  });

  it('is refused when a byte of its body changed', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    const at = bytes.indexOf('Rex');
    bytes[at] = 'P'.charCodeAt(0);
    writeFileSync(file('pet-list.snapshot'), bytes);
    expect(await snapshots.load('pet-list')).toEqual({
      ok: false,
      reason: 'the body does not match its SHA-256: corrupted',
    });
  });

  it('is refused when it is another projection’s', async () => {
    await snapshots.save({ ...meta, projection: 'api-keys' }, []);
    writeFileSync(file('pet-list.snapshot'), readFileSync(file('api-keys.snapshot')));
    expect(await snapshots.load('pet-list')).toEqual({
      ok: false,
      reason: 'a snapshot of api-keys, not pet-list',
    });
  });

  it('is refused when it is not a snapshot at all, or of another format version', async () => {
    writeFileSync(file('pet-list.snapshot'), `{"projection":"pet-list"}\n${' '.repeat(HEADER_BYTES)}`);
    expect(await snapshots.load('pet-list')).toMatchObject({
      reason: 'no snapshot header: not a snapshot file',
    });
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    bytes.write('"formatVersion":9', bytes.indexOf('"formatVersion":2'));
    writeFileSync(file('pet-list.snapshot'), bytes);
    expect(await snapshots.load('pet-list')).toMatchObject({
      reason: 'snapshot format 9; this code reads 2',
    });
  });

  it('header: a file whose header is damaged gives the reason a load refuses it for, and no file gives nothing', async () => {
    await snapshots.save(meta, parts);
    const bytes = readFileSync(file('pet-list.snapshot'));
    bytes[5] = 0;
    writeFileSync(file('pet-list.snapshot'), bytes);
    const reason = 'no snapshot header: not a snapshot file';
    expect([
      await snapshots.header('pet-list'),
      await snapshots.load('pet-list'),
      await snapshots.header('orders'),
    ]).toEqual([{ ok: false, reason }, { ok: false, reason }, undefined]);
  });

  it('replaces the previous one only once whole: a write that fails leaves it, and no temporary file', async () => {
    await snapshots.save(meta, parts);
    function* failing() {
      yield { ids: [1] };
      throw new Error('disk trouble');
    }
    await expect(snapshots.save({ ...meta, checkpoint: '2000' }, failing())).rejects.toThrow('disk trouble');
    expect(await snapshots.load('pet-list')).toMatchObject({ ok: true, snapshot: { checkpoint: '1234' } });
    expect(readdirSync(temp.dir)).toEqual(['pet-list.snapshot']);
  });
});

/** The file with another body, and a header whose length and checksum are that body's. */
function withBody(file: Buffer, body: Buffer): Buffer {
  const header = JSON.parse(file.subarray(0, HEADER_BYTES).toString()) as SnapshotHeader;
  const sha256 = createHash('sha256').update(body).digest('hex');
  return Buffer.concat([encodeHeader({ ...header, bodyBytes: body.length, sha256 }), body]);
}

describe('leftovers of interrupted writes', () => {
  it('are removed: temporary files of processes gone, of this process id, and files of the first format', async () => {
    const gone = 2 ** 22 + 17; // above Linux's pid_max: no such process
    for (const name of [
      `pet-list.snapshot.${gone}.0a1b2c3d.tmp`,
      `pet-list.snapshot.${process.pid}.0a1b2c3d.tmp`,
      `pet-list.snapshot.json.${gone}.tmp`,
      'pet-list.snapshot.json',
    ])
      writeFileSync(file(name), 'partial');
    expect((await snapshots.removeLeftovers()).sort()).toEqual(
      [
        'pet-list.snapshot.json',
        `pet-list.snapshot.json.${gone}.tmp`,
        `pet-list.snapshot.${gone}.0a1b2c3d.tmp`,
        `pet-list.snapshot.${process.pid}.0a1b2c3d.tmp`,
      ].sort(),
    );
    expect(readdirSync(temp.dir)).toEqual([]);
  });

  it('keep a recent temporary file of another running process (one sharing the data directory), not an old one', async () => {
    const recent = file(`pet-list.snapshot.${process.ppid}.0a1b2c3d.tmp`);
    const old = file(`api-keys.snapshot.${process.ppid}.0a1b2c3d.tmp`);
    writeFileSync(recent, 'being written');
    writeFileSync(old, 'written two hours ago');
    const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    expect(await snapshots.removeLeftovers()).toEqual([path.basename(old)]);
    expect(existsSync(recent)).toBe(true);
  });
});
