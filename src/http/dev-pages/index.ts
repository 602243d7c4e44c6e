import type { FastifyInstance } from 'fastify';
import { apiReferencePage } from './api-reference.ts';
import { graphiqlPage } from './graphiql.ts';

/**
 * Pages for developers exploring the API in a browser: GraphiQL at /graphiql and the API reference
 * at /docs. Behind DEV_PAGES (on outside production): they serve megabytes of script that production
 * never needs, and introspection is off there anyway.
 */
export async function devPages(app: FastifyInstance): Promise<void> {
  graphiqlPage(app);
  apiReferencePage(app);
}
