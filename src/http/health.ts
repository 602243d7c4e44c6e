import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.ts';
import { sendError } from './error-handler.ts';
import { allowOnly } from './four-oh-four.ts';

/** Whether this process should take traffic now; when not, why, in words an operator can act on. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };
export type ReadinessCheck = () => Promise<Readiness>;

export const alwaysReady: ReadinessCheck = async () => ({ ready: true });

export class NotReadyError extends AppError {
  constructor(reason: string) {
    super('not_ready', 503, `Not ready: ${reason}.`, { 'Cache-Control': 'no-store' });
  }
}

const OK = { status: 'ok' } as const;

/**
 * The probes of load balancers and orchestrators: no key, no rate limit, no rate-limit headers
 * (`probe` routes, see guard.ts), and they still answer while the server shuts down.
 * - `/health/live`: the process serves HTTP. A failing liveness probe gets a process restarted, so it
 *   checks nothing else: a store outage is not cured by a restart.
 * - `/health/ready`: send this process traffic. 503 `not_ready` while it shuts down, while the store
 *   does not answer, or while a read model lags (see src/observability/readiness.ts).
 * - `/health`: the older name of `/health/live`.
 */
export function healthRoutes(
  app: FastifyInstance,
  options: { readonly readiness: ReadinessCheck; readonly shuttingDown: () => boolean },
): void {
  const probe = { config: { probe: true } };
  const alive = async () => OK;
  app.get('/health', probe, alive);
  app.get('/health/live', probe, alive);
  for (const url of ['/health', '/health/live', '/health/ready'])
    allowOnly(app, url, ['GET', 'HEAD'], probe.config);
  app.get('/health/ready', probe, async (_request, reply) => {
    const state = options.shuttingDown()
      ? ({ ready: false, reason: 'the server is shutting down' } as const)
      : await options.readiness();
    if (!state.ready) return sendError(reply, new NotReadyError(state.reason));
    return reply.header('cache-control', 'no-store').send(OK);
  });
}
