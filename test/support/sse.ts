/** One server-sent event as a client sees it. */
export type SseEvent = { readonly id: string | undefined; readonly data: unknown };

/**
 * Opens `url` as a server-sent event stream and collects events until `count` arrived; calls
 * `whenOpen` once the stream is live (its first bytes arrived). Comment lines are skipped, and so
 * are ids sent alone, which dispatch no event, unless `idsAlone` (then their `data` is undefined).
 */
export async function readSse(
  url: string,
  headers: Record<string, string>,
  count: number,
  whenOpen: () => Promise<void> = async () => {},
  idsAlone = false,
): Promise<SseEvent[]> {
  const abort = new AbortController();
  const response = await fetch(url, {
    headers: { accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  if (response.status !== 200 || !response.headers.get('content-type')?.startsWith('text/event-stream')) {
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  let opened = false;
  try {
    while (events.length < count) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      if (!opened) {
        opened = true;
        void whenOpen();
      }
      for (
        let end = buffer.indexOf('\n\n');
        end >= 0 && events.length < count;
        end = buffer.indexOf('\n\n')
      ) {
        const fields = parseBlock(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (fields.data !== undefined) events.push({ id: fields.id, data: JSON.parse(fields.data) });
        else if (idsAlone && fields.id !== undefined) events.push({ id: fields.id, data: undefined });
      }
    }
  } finally {
    abort.abort();
  }
  return events;
}

function parseBlock(block: string): { id?: string; data?: string } {
  const fields: { id?: string; data?: string } = {};
  for (const line of block.split('\n')) {
    if (line.startsWith('id: ')) fields.id = line.slice(4);
    else if (line.startsWith('data: ')) fields.data = line.slice(6);
  }
  return fields;
}
