import type { FastifyInstance } from 'fastify';
import type { Application } from '../../application/index.ts';
import { allowOnly } from '../four-oh-four.ts';
import { noFields, onlyQueryParams, presentOnly } from './params.ts';

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

  app.get('/admin/projections', { config: ADMIN }, async (request) => {
    presentOnly(request, 'a read model is shown only as it is now, on this server');
    return readModels.status();
  });
  // Neither takes input: a field or parameter sent would be ignored, so it is refused (see noFields).
  app.post('/admin/projections/:name/rebuild', { config: ADMIN }, async (request, reply) => {
    onlyQueryParams(request, [], 'a rebuild takes none');
    noFields(request.body, 'a rebuild takes no fields');
    return reply.code(202).send(readModels.rebuild(name(request.params)));
  });
  app.post('/admin/projections/:name/verify', { config: ADMIN }, async (request) => {
    onlyQueryParams(request, [], 'a verification takes none');
    noFields(request.body, 'a verification takes no fields');
    return readModels.verify(name(request.params));
  });
  allowOnly(app, '/admin/projections', ['GET', 'HEAD']);
  allowOnly(app, '/admin/projections/:name/rebuild', ['POST']);
  allowOnly(app, '/admin/projections/:name/verify', ['POST']);
}
