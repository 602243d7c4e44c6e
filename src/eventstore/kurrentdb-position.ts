import type { Position } from '@kurrent/kurrentdb-client';

/**
 * KurrentDB orders `$all` by (commit, prepare). Every event an append writes has its own log
 * position, which is both its commit and its prepare position (an append of several events
 * answers with the last one's); only the events of an explicit transaction, a feature of the
 * legacy TCP protocol, share one commit position and differ in their prepare positions. The
 * port's single bigint packs both, commit in the high 64 bits: the packed values order exactly as
 * `$all` does, whatever wrote the events, and unpack to the `Position` the client needs to resume.
 */

const LOW_64 = (1n << 64n) - 1n;

export function packPosition(position: Position): bigint {
  return (position.commit << 64n) | (position.prepare & LOW_64);
}

export function unpackPosition(packed: bigint): Position {
  if (packed < 0n) throw new RangeError(`A KurrentDB position is never negative: ${packed}`);
  return { commit: packed >> 64n, prepare: packed & LOW_64 };
}

/**
 * Events read from a stream (not from `$all`) may come without their log position: older servers
 * send none, or the maximum unsigned 64-bit value. Such a position is unknown, not huge.
 */
export function isKnownPosition(position: Position | undefined): position is Position {
  return position !== undefined && position.commit !== LOW_64 && position.prepare !== LOW_64;
}
