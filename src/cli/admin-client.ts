import { ConfigError } from '../config.ts';
import type { ProjectionStatus, RebuildStatus, VerifyReport } from '../application/index.ts';
import { CommandFailure, UsageError } from './usage-error.ts';

/** How often a rebuild's progress is asked for. */
const POLL_MS = 250;

/**
 * A read model's status as a server reports it: a server of a release before `unknownEvents` or
 * `unreadableSnapshot` (one not yet upgraded, during a rolling upgrade) answers without them.
 */
export type ReportedStatus = Omit<ProjectionStatus, 'unknownEvents' | 'unreadableSnapshot'> &
  Partial<Pick<ProjectionStatus, 'unknownEvents' | 'unreadableSnapshot'>>;

/**
 * How long a status, or the start of a rebuild, may take to answer in full: a server answers them
 * from memory at once, and one that accepts the connection but never answers (stopped with
 * SIGSTOP, wedged, a proxy holding the request) otherwise held the command for undici's 300 s.
 * A verify has no bound: it folds every event of the store on the server, which takes as long as
 * the store is large.
 */
export const ANSWER_WITHIN_MS = 30_000;

/** A running server's admin endpoints (scope admin), for `petstore projections … --url`. */
export function adminClient(
  url: string,
  apiKey: string | undefined,
  { answerWithinMs = ANSWER_WITHIN_MS }: { answerWithinMs?: number } = {},
) {
  const base = serviceAddress(url);
  if (apiKey === undefined) {
    throw new ConfigError('--url needs an API key with the admin scope in PETSTORE_API_KEY');
  }
  const headers = authorization(apiKey);
  async function call<T>(method: 'GET' | 'POST', path: string, withinMs?: number): Promise<T> {
    const signal = withinMs === undefined ? undefined : AbortSignal.timeout(withinMs);
    try {
      const response = await fetch(`${base}/v1/admin/projections${path}`, { method, headers, signal });
      const body = await jsonOf<T & { code?: string; message?: string }>(response, base);
      if (!response.ok) {
        // A script that retries needs to know when (a 429, or a 503 while the server starts).
        const retryAfter = response.headers.get('retry-after');
        const when = retryAfter === null ? '' : ` (retry after ${retryAfter} s)`;
        throw new CommandFailure(`${base} answered ${response.status} ${body.code}: ${body.message}${when}`);
      }
      return body;
    } catch (error) {
      if (error instanceof CommandFailure) throw error;
      if (signal?.aborted === true)
        throw new CommandFailure(
          `${base} did not answer within ${withinMs! / 1000} s: is the server stopped or overloaded?`,
        );
      throw new CommandFailure(`cannot reach ${base}: ${String((error as Error).cause ?? error)}`);
    }
  }
  const status = () => call<ReportedStatus[]>('GET', '', answerWithinMs);
  return {
    status,
    verify: (name: string) => call<VerifyReport>('POST', `/${encodeURIComponent(name)}/verify`),
    /** Starts the rebuild, then follows it until it is swapped in (or fails). */
    async rebuild(name: string, onProgress: (status: RebuildStatus) => void): Promise<RebuildStatus> {
      let current = await call<RebuildStatus>('POST', `/${encodeURIComponent(name)}/rebuild`, answerWithinMs);
      while (current.state === 'running') {
        onProgress(current);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const rebuild = (await status()).find((projection) => projection.name === name)?.rebuild;
        // A server restarted meanwhile (a deploy) has lost the rebuild: a condition to act on, not a bug.
        if (rebuild == null)
          throw new CommandFailure(
            `${base} no longer reports the rebuild of ${name} (did it restart?): see petstore projections status --url ${base}`,
          );
        current = rebuild;
      }
      return current;
    },
  };
}

/**
 * `--url` as the base of the admin endpoints' addresses: an http:// or https:// URL, perhaps with a
 * path (a proxy's prefix), but no query, fragment or credentials, which the paths appended to it or
 * fetch would break. A mistake in the command line (status 2), not a server that cannot be reached.
 */
function serviceAddress(url: string): string {
  const parsed = URL.parse(url);
  if (
    parsed === null ||
    !['http:', 'https:'].includes(parsed.protocol) ||
    parsed.username !== '' ||
    parsed.password !== '' ||
    // A lone ? or # leaves URL's search or hash empty, and would still end up before the paths.
    /[?#]/.test(url)
  ) {
    const shown = withoutUserInfo(url);
    const credentials = shown === url ? '' : ', with no credentials in it: the key goes in PETSTORE_API_KEY';
    throw new UsageError(
      `--url must be the server's http:// or https:// address, such as http://127.0.0.1:3000${credentials} (not ${JSON.stringify(shown)})`,
    );
  }
  return url.replace(/\/+$/, '');
}

/**
 * A URL as a message may show it: a user name and password (parsable or not) as `…`, never repeated.
 * Everything up to the last `@` goes: a password may hold `/`, `?` or `#` (`ops:s3/cret@host`, not
 * percent-encoded), which end the host where a parser looks for credentials, so that an `@` after
 * them may still close credentials. Of a refused URL, a path's `@` hides a little more than needed.
 */
function withoutUserInfo(url: string): string {
  const at = url.lastIndexOf('@');
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0] ?? '';
  return at < scheme.length ? url : `${scheme}…${url.slice(at)}`;
}

/** The Authorization header, refusing a key no header can carry without repeating it (it is a secret). */
function authorization(apiKey: string): Headers {
  try {
    return new Headers({ authorization: `Bearer ${apiKey}` });
  } catch {
    throw new CommandFailure(
      'PETSTORE_API_KEY is not a valid header value (a line break or another control character?)',
    );
  }
}

/** The body of an answer of this service's admin API, which is JSON; anything else is not that API. */
async function jsonOf<T>(response: Response, base: string): Promise<T> {
  const type = response.headers.get('content-type') ?? 'no content type';
  const text = await response.text();
  try {
    if (/^application\/json\b/i.test(type)) return JSON.parse(text) as T;
  } catch {
    // said below
  }
  throw new CommandFailure(
    `${base} answered something other than this service's admin API (status ${response.status}, ${type}): is --url the service's address?`,
  );
}
