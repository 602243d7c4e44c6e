import type { FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';

/**
 * The guard runs before every adapter (REST and GraphQL alike): the one place where
 * authentication and rate limits plug in. Registered with fastify-plugin so its hooks apply to
 * the whole server, including the 404 handler.
 */
export type Guard = FastifyPluginAsync;

/** No authentication and no limits. */
export const openGuard: Guard = fp(async () => {}, { name: 'guard' });
