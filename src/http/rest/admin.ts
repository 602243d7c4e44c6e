import type { FastifyInstance } from 'fastify';
import type { Application } from '../../application/index.ts';
import { allowOnly } from '../four-oh-four.ts';

const ADMIN = { scope: 'admin' } as const;

/**
 * This server's read models, for operators (scope admin): their status, a rebuild beside the live
 * one, a verification against a fresh fold. `petstore projections … --url` calls these; each
 * server answers for its own read models.
 */
export async function adminRoutes(
  app: FastifyInstance,
  options: { application: Application },
): Promise<void> {
  const { readModels } = options.application;
  const name = (params: unknown) => (params as { name: string }).name;

  app.get('/admin/projections', { config: ADMIN }, async () => readModels.status());
  app.post('/admin/projections/:name/rebuild', { config: ADMIN }, async (request, reply) =>
    reply.code(202).send(readModels.rebuild(name(request.params))),
  );
  app.post('/admin/projections/:name/verify', { config: ADMIN }, async (request) =>
    readModels.verify(name(request.params)),
  );
  allowOnly(app, '/admin/projections', ['GET', 'HEAD']);
  allowOnly(app, '/admin/projections/:name/rebuild', ['POST']);
  allowOnly(app, '/admin/projections/:name/verify', ['POST']);
}
