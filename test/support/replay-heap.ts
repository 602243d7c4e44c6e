// Replays N items through a GraphQL live stream (resumedStream) and reads every one, keeping the
// stream open, then prints the heap it holds beyond what it held before, after a full GC: run
// with --expose-gc by test/http/graphql/live-stream-memory.int.test.ts.
import { resumedStream } from '../../src/http/live-stream.ts';

const count = Number(process.argv[2]);
const gc = (globalThis as { gc?: () => void }).gc!;

async function* replay() {
  for (let n = 0; n < count; n++) yield { n };
}

const closing = new AbortController();
const stream = resumedStream(() => ({ replayed: replay(), unsubscribe: () => {} }), closing.signal);
gc();
const before = process.memoryUsage().heapUsed;
let read = 0;
while (read < count) {
  await stream.next();
  read += 1;
}
gc();
const held = process.memoryUsage().heapUsed - before;
closing.abort();
await stream.return?.(undefined);
process.stdout.write(`${JSON.stringify({ read, held })}\n`);
