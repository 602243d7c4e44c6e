import { ConfigError } from '../config.ts';
import type { ProjectionStatus, RebuildStatus, VerifyReport } from '../application/index.ts';
import { CommandFailure } from './usage-error.ts';

/** How often a rebuild's progress is asked for. */
const POLL_MS = 250;

/** A running server's admin endpoints (scope admin), for `petstore projections … --url`. */
export function adminClient(url: string, apiKey: string | undefined) {
  if (apiKey === undefined) {
    throw new ConfigError('--url needs an API key with the admin scope in PETSTORE_API_KEY');
  }
  const base = url.replace(/\/+$/, '');
  async function call<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${base}/v1/admin/projections${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}` },
      });
    } catch (error) {
      throw new CommandFailure(`cannot reach ${base}: ${String((error as Error).cause ?? error)}`);
    }
    const body = (await response.json()) as T & { code?: string; message?: string };
    if (!response.ok)
      throw new CommandFailure(`${base} answered ${response.status} ${body.code}: ${body.message}`);
    return body;
  }
  const status = () => call<ProjectionStatus[]>('GET', '');
  return {
    status,
    verify: (name: string) => call<VerifyReport>('POST', `/${encodeURIComponent(name)}/verify`),
    /** Starts the rebuild, then follows it until it is swapped in (or fails). */
    async rebuild(name: string, onProgress: (status: RebuildStatus) => void): Promise<RebuildStatus> {
      let current = await call<RebuildStatus>('POST', `/${encodeURIComponent(name)}/rebuild`);
      while (current.state === 'running') {
        onProgress(current);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
        const rebuild = (await status()).find((projection) => projection.name === name)?.rebuild;
        if (rebuild == null) throw new Error(`${base} no longer reports the rebuild of ${name}`);
        current = rebuild;
      }
      return current;
    },
  };
}
