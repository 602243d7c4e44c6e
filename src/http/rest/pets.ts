import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Application, ChangeOptions } from '../../application/index.ts';
import type { VersionedPet } from '../../domain/pets.ts';
import { ValidationError } from '../../shared/errors.ts';
import { allowOnly } from '../four-oh-four.ts';
import { petResponseSchema, petsResponseSchema } from '../openapi.ts';
import { requestContext } from '../request-context.ts';
import { etagOf, ifNoneMatchHolds, parseIfMatch } from './etag.ts';
import { PetJsonCache } from './pet-json.ts';

const JSON_UTF8 = 'application/json; charset=utf-8';

/** RFC 9745 (deprecated since 2026-11-22), RFC 8594, and the successor operation. */
const GET_PET_DEPRECATION_HEADERS = {
  Deprecation: '@1795305600',
  Sunset: 'Thu, 05 Dec 2030 00:00:00 GMT',
  Link: '</v1/pets>; rel="successor-version"',
};

const READ = { scope: 'pets:read' } as const;
const WRITE = { scope: 'pets:write' } as const;

/** REST /v1/pets: translates HTTP to the application layer and back, nothing more. */
export async function petRoutes(app: FastifyInstance, options: { application: Application }): Promise<void> {
  const { application } = options;
  const petJson = new PetJsonCache();

  // The reads are synchronous handlers (an async one costs a promise per request for nothing). The
  // list is sent as JSON already made (see pet-json.ts); the schema still documents it.
  app.get('/pets', { config: READ, schema: { response: { 200: petsResponseSchema } } }, (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const page = application.listPets({
      limit: integerParam(query, 'limit'),
      status: stringParam(query, 'status'),
      after: integerParam(query, 'after'),
    });
    if (page.nextAfter !== undefined) reply.header('Link', nextPageLink(query, page.nextAfter));
    reply.type(JSON_UTF8).send(petJson.list(page.pets));
  });

  app.post(
    '/pets',
    { config: WRITE, schema: { response: { 201: petResponseSchema } } },
    async (request, reply) => {
      const idempotencyKey = singleHeader(request, 'idempotency-key');
      const { pet, replayed } = await application.createPet(
        request.body,
        requestContext(request),
        idempotencyKey === undefined ? {} : { idempotencyKey },
      );
      if (replayed) reply.header('Idempotent-Replayed', 'true');
      return sendPet(reply.code(201).header('Location', `/v1/pets/${pet.id}`), pet);
    },
  );

  app.get(
    '/pets/:petId',
    {
      config: READ,
      schema: { response: { 200: petResponseSchema, 304: { type: 'null' } } },
      // onSend, not onRequest: the guard's onRequest runs first, and its 401 and 429 need them too.
      onSend: (_request, reply, payload, done) => {
        reply.headers(GET_PET_DEPRECATION_HEADERS);
        done(null, payload);
      },
    },
    (request, reply) => {
      const pet = application.getPet(petIdParam(request));
      if (ifNoneMatchHolds(request.headers['if-none-match'], pet.version)) {
        return reply.code(304).header('ETag', etagOf(pet.version)).send();
      }
      return sendPet(reply, pet);
    },
  );

  app.patch(
    '/pets/:petId',
    { config: WRITE, schema: { response: { 200: petResponseSchema } } },
    async (request, reply) => {
      const { pet } = await application.updatePet(
        petIdParam(request),
        request.body,
        requestContext(request),
        ifMatch(request),
      );
      return sendPet(reply, pet!);
    },
  );

  app.delete('/pets/:petId', { config: WRITE }, async (request, reply) => {
    const reason = stringParam(request.query as Record<string, unknown>, 'reason');
    await application.removePet(petIdParam(request), requestContext(request), {
      ...ifMatch(request),
      ...(reason !== undefined && { reason }),
    });
    return reply.code(204).send();
  });

  allowOnly(app, '/pets', ['GET', 'HEAD', 'POST']);
  allowOnly(app, '/pets/:petId', ['GET', 'HEAD', 'PATCH', 'DELETE']);
}

function sendPet(reply: FastifyReply, pet: VersionedPet): FastifyReply {
  return reply.header('ETag', etagOf(pet.version)).send(pet);
}

function ifMatch(request: FastifyRequest): ChangeOptions {
  const condition = parseIfMatch(request.headers['if-match']);
  return condition === undefined || 'any' in condition ? {} : { expectedVersions: condition.versions };
}

function stringParam(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ValidationError(`${name} must be given at most once.`, name);
  return value;
}

/** Decimal digits only: "1e2", "0x10", " 5" and "5.0" are not integers here. */
function integerParam(query: Record<string, unknown>, name: string): number | undefined {
  const value = stringParam(query, name);
  if (value === undefined) return undefined;
  if (!/^-?\d{1,20}$/.test(value)) throw new ValidationError(`${name} must be an integer.`, name);
  return Number(value);
}

function petIdParam(request: FastifyRequest): bigint {
  const raw = (request.params as { petId: string }).petId;
  if (!/^-?\d{1,25}$/.test(raw)) throw new ValidationError('petId must be an integer.', 'petId');
  return BigInt(raw);
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  if (Array.isArray(value)) throw new ValidationError(`${name} must be sent at most once.`, name);
  return value;
}

/**
 * The next page's URL, keeping the query's limit and status. Both were validated by then (decimal
 * digits, and one of the statuses), so they go in as they came, with nothing to percent-encode.
 */
function nextPageLink(query: Record<string, unknown>, after: number): string {
  let link = '</v1/pets?';
  if (typeof query.limit === 'string') link += `limit=${query.limit}&`;
  if (typeof query.status === 'string') link += `status=${query.status}&`;
  return `${link}after=${after}>; rel="next"`;
}
