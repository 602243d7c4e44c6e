import http from 'node:http';

/**
 * Real HTTP clients sending a large request body over a real socket: Node's fetch (undici) and
 * node:http, each with the body buffered (Content-Length) and streamed (chunked). Each resolves
 * with the status and body the client read, and rejects when the client failed to read a response
 * (a broken pipe, a reset).
 */

export type ClientOutcome = { status: number; body: string };
export type LargeBodyClient = (
  url: string,
  headers: Record<string, string>,
  size: number,
) => Promise<ClientOutcome>;

const CHUNK = 64 * 1024;
const filler = Buffer.alloc(CHUNK, 'a');

/** The body's bytes, a chunk at a time, produced only as fast as the client sends them. */
function* chunks(size: number): Generator<Buffer> {
  for (let sent = 0; sent < size; sent += CHUNK) yield filler.subarray(0, Math.min(CHUNK, size - sent));
}

const fetchBuffered: LargeBodyClient = async (url, headers, size) => {
  const response = await fetch(url, { method: 'POST', headers, body: Buffer.alloc(size, 'a') });
  return { status: response.status, body: await response.text() };
};

const fetchStreamed: LargeBodyClient = async (url, headers, size) => {
  const source = chunks(size);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = source.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
  const response = await fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  return { status: response.status, body: await response.text() };
};

function nodeHttp(streamed: boolean): LargeBodyClient {
  return (url, headers, size) =>
    new Promise((resolve, reject) => {
      const lengthHeader = streamed ? {} : { 'content-length': String(size) };
      const request = http.request(
        url,
        { method: 'POST', headers: { ...headers, ...lengthHeader } },
        (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (text: string) => (body += text));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      if (!streamed) {
        request.end(Buffer.alloc(size, 'a'));
        return;
      }
      const source = chunks(size);
      const write = (): void => {
        for (let next = source.next(); !next.done; next = source.next()) {
          if (!request.write(next.value)) {
            request.once('drain', write);
            return;
          }
        }
        request.end();
      };
      write();
    });
}

export const LARGE_BODY_CLIENTS: ReadonlyArray<readonly [name: string, client: LargeBodyClient]> = [
  ['fetch, buffered', fetchBuffered],
  ['fetch, streamed', fetchStreamed],
  ['node:http, buffered', nodeHttp(false)],
  ['node:http, streamed', nodeHttp(true)],
];

/** How each of `times` sequential attempts ended: a status, or the client's error code. */
export async function outcomes(times: number, attempt: () => Promise<ClientOutcome>): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < times; i++) {
    try {
      const { status, body } = await attempt();
      seen.push(`${status} ${body}`);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      seen.push(`failed: ${cause?.code ?? (error as { code?: string }).code ?? String(error)}`);
    }
  }
  return seen;
}
