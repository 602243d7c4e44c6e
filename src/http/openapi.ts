import type { FastifyInstance } from 'fastify';
import document from '../../schema/openapi.json' with { type: 'json' };
import { allowOnly } from './four-oh-four.ts';

/**
 * The OpenAPI document in schema/openapi.json is the description of the REST API. It is served
 * as is, and its component schemas are the response schemas Fastify serialises with, so the
 * document and the bytes on the wire cannot drift apart.
 */
export const openApiDocument = document;

const {
  PetStatus,
  Pet,
  Order,
  OrderStatus,
  Inventory,
  HistoryEntry,
  AuditEvent,
  Error: ErrorSchema,
} = document.components.schemas;

/** The Pet schema with its `$ref` resolved, for fast-json-stringify. */
export const petResponseSchema = {
  ...Pet,
  properties: { ...Pet.properties, status: { ...PetStatus, description: Pet.properties.status.description } },
};
export const petsResponseSchema = { type: 'array', items: petResponseSchema } as const;
export const errorResponseSchema = ErrorSchema;
export const auditEventsResponseSchema = { type: 'array', items: AuditEvent } as const;

/** The Order schema with its `$ref` resolved. */
export const orderResponseSchema = {
  ...Order,
  properties: { ...Order.properties, status: OrderStatus },
};
export const ordersResponseSchema = { type: 'array', items: orderResponseSchema } as const;
export const inventoryResponseSchema = Inventory;
export const historyResponseSchema = { type: 'array', items: HistoryEntry } as const;

export async function openApiRoute(app: FastifyInstance): Promise<void> {
  const body = JSON.stringify(document);
  app.get('/v1/openapi.json', { config: { public: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send(body),
  );
  allowOnly(app, '/v1/openapi.json', ['GET', 'HEAD'], { public: true });
}
