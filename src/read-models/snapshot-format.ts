import { createHash } from 'node:crypto';

/**
 * A snapshot file: a fixed-size header line, then the body. The header says what the file is (its
 * format and version), which projection at which version made it, the position it covers (and the
 * id of the event there), when it was saved, and the body's length and SHA-256. The body is the
 * JSON array of the projection's snapshot parts, each on a line of its own (`[part,\npart,\n…]`;
 * JSON.stringify writes no line break inside a part), so that a start parses and folds one part at
 * a time. Nothing in a file is trusted before `readSnapshot` has checked all of it: a truncated,
 * corrupted or foreign file is refused with the reason.
 */

export const SNAPSHOT_FORMAT = 'petstore-read-model-snapshot';
export const SNAPSHOT_FORMAT_VERSION = 2;
/** The header is written last, in place, once the body's length and checksum are known. */
export const HEADER_BYTES = 1024;

/** What a snapshot covers: which projection, at which version, up to which event of which store. */
export type SnapshotMeta = {
  readonly projection: string;
  readonly version: number;
  /** Decimal string: positions are bigint. */
  readonly checkpoint: string;
  /**
   * Id of the event at `checkpoint`: a snapshot is only valid for the store that holds that very
   * event there (not for a store replaced under it, or another store at the same path).
   */
  readonly checkpointEventId: string;
};

export type SnapshotHeader = SnapshotMeta & {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly formatVersion: number;
  /** RFC 3339. */
  readonly savedAt: string;
  readonly bodyBytes: number;
  /** Hex SHA-256 of the body. */
  readonly sha256: string;
};

export type Snapshot = SnapshotHeader & {
  /**
   * Each part is parsed when an iteration reaches it, and can be iterated again. Parsing the body
   * whole made every part's arrays live at once beside the records being made from them: restoring a
   * million pets took about 250 ms more (30%), most of it GC. The checksum has proven the body
   * first, so a part that does not parse means a defect of the writer; it throws from the iteration,
   * and the read model is then rebuilt from the events (see `ReadModel.restore`).
   */
  readonly parts: Iterable<unknown>;
};

export type SnapshotRead =
  { readonly ok: true; readonly snapshot: Snapshot } | { readonly ok: false; readonly reason: string };

/** The header line, padded to HEADER_BYTES (its last byte a newline). */
export function encodeHeader(header: SnapshotHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header));
  if (json.length > HEADER_BYTES - 1) throw new Error(`A snapshot header over ${HEADER_BYTES - 1} bytes.`);
  const line = Buffer.alloc(HEADER_BYTES, ' ');
  json.copy(line);
  line[HEADER_BYTES - 1] = 0x0a;
  return line;
}

/**
 * The header at the start of `bytes` (a whole file, or as much of its start as was read), or why
 * there is none this code reads: what a load refuses a file for, and a status shows.
 */
export function headerOf(bytes: Buffer): SnapshotHeader | string {
  if (bytes.length < HEADER_BYTES) return `${bytes.length} bytes: truncated, or not a snapshot`;
  return parseHeader(bytes.subarray(0, HEADER_BYTES));
}

/** Checks a whole file, made for `projection`, and parses its body only once every check holds. */
export function readSnapshot(file: Buffer, projection: string): SnapshotRead {
  const refuse = (reason: string): SnapshotRead => ({ ok: false, reason });
  const header = headerOf(file);
  if (typeof header === 'string') return refuse(header);
  if (header.projection !== projection)
    return refuse(`a snapshot of ${header.projection}, not ${projection}`);
  const body = file.subarray(HEADER_BYTES);
  if (body.length !== header.bodyBytes) {
    return refuse(`the body has ${body.length} bytes where the header says ${header.bodyBytes}: truncated`);
  }
  if (createHash('sha256').update(body).digest('hex') !== header.sha256) {
    return refuse('the body does not match its SHA-256: corrupted');
  }
  const parts = bodyParts(body);
  if (parts === undefined) return refuse('the body is not an array of parts');
  return { ok: true, snapshot: { ...header, parts } };
}

const OPEN = 0x5b; // [
const CLOSE = 0x5d; // ]
const COMMA = 0x2c;
const NEWLINE = 0x0a;

/**
 * The parts of a body: a part per line, parsed as they are reached. A body on one line (`[]`, a
 * single part, or a file written before parts had lines of their own) is parsed whole.
 */
function bodyParts(body: Buffer): Iterable<unknown> | undefined {
  if (body[0] !== OPEN || body[body.length - 1] !== CLOSE) return undefined;
  if (!body.includes(NEWLINE)) {
    const parts: unknown = JSON.parse(body.toString('utf8'));
    return Array.isArray(parts) ? parts : undefined;
  }
  return { [Symbol.iterator]: () => partLines(body) };
}

function* partLines(body: Buffer): Generator<unknown> {
  for (let start = 1; ;) {
    const newline = body.indexOf(NEWLINE, start);
    const end = newline === -1 ? body.length - 1 : newline - 1;
    if (newline !== -1 && body[end] !== COMMA) {
      throw new Error(`A snapshot part ending at byte ${end} is not followed by a comma.`);
    }
    yield JSON.parse(body.toString('utf8', start, end));
    if (newline === -1) return;
    start = newline + 1;
  }
}

/** The header, or why it is not one this code reads. */
function parseHeader(line: Buffer): SnapshotHeader | string {
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8'));
  } catch {
    return 'no snapshot header: not a snapshot file';
  }
  const h = value as Record<string, unknown>;
  if (typeof h !== 'object' || h === null || h.format !== SNAPSHOT_FORMAT) {
    return 'no snapshot header: not a snapshot file';
  }
  if (h.formatVersion !== SNAPSHOT_FORMAT_VERSION) {
    return `snapshot format ${String(h.formatVersion)}; this code reads ${SNAPSHOT_FORMAT_VERSION}`;
  }
  const wellFormed =
    typeof h.projection === 'string' &&
    Number.isSafeInteger(h.version) &&
    typeof h.checkpoint === 'string' &&
    /^\d+$/.test(h.checkpoint) &&
    typeof h.checkpointEventId === 'string' &&
    typeof h.savedAt === 'string' &&
    Number.isSafeInteger(h.bodyBytes) &&
    typeof h.sha256 === 'string';
  return wellFormed ? (h as SnapshotHeader) : 'a damaged snapshot header';
}
