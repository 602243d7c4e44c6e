/**
 * What a replay costs its client. A stream resumed from far back reads the store from there to
 * now, the events a filter passes over included, and every one of them costs the server as much as
 * one it sends: a filtered replay of a large store could scan it whole for the one request that
 * opened it. So a replay pays as pages do: one request for every EVENTS_PER_REQUEST events it reads
 * (a filtered page reads at most as many, FEED_SCAN_LIMIT), the first ones paid by the request
 * that opened it. The live events that follow are not counted: their number is the writes', which
 * their writers paid for.
 */
export const EVENTS_PER_REQUEST = 10_000;

/**
 * Counts `requests` more against the client's budget; a replay reads on once it settles (it may
 * wait for the budget's next window). `ended` aborts once the replay has stopped (its stream
 * ended): a payment still waiting then settles at once, unpaid, and the replay reads no further.
 * Rejects when the client may not go on (banned, say): the replay ends with that error.
 */
export type PayForReads = (requests: number, ended: AbortSignal) => Promise<void>;

export type ReadMeter = (events: number) => Promise<void> | undefined;

/**
 * Counts the events a replay reads and pays for each EVENTS_PER_REQUEST of them past the first
 * (paid by the request that opened the stream), once it has read into them: `read(n)` returns
 * undefined while nothing is due (no promise on the path of every event), else the payment to await
 * before delivering what it read, which `ended` cuts short. Without `pay` (the CLI, the tests),
 * reading is free.
 */
export function readMeter(pay: PayForReads | undefined, ended: AbortSignal): ReadMeter {
  if (pay === undefined) return () => undefined;
  let read = 0;
  let paidFor = EVENTS_PER_REQUEST; // by the request that opened the stream
  return (events) => {
    read += events;
    if (read <= paidFor) return undefined;
    const due = Math.ceil((read - paidFor) / EVENTS_PER_REQUEST);
    paidFor += due * EVENTS_PER_REQUEST;
    return pay(due, ended);
  };
}
