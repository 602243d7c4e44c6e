import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Application, PetsPage } from '../../application/index.ts';
import { InsufficientScopeError } from '../../shared/auth-errors.ts';
import { NotFoundError } from '../../shared/errors.ts';
import type { VersionedPet } from '../../domain/pets.ts';
import { allowOnly } from '../four-oh-four.ts';
import { petResponseSchema, petsResponseSchema } from '../openapi.ts';
import { requestContext } from '../request-context.ts';
import { etagOf, notModified } from './etag.ts';
import {
  idParam,
  integerParam,
  nextPageLink,
  noFields,
  onlyQueryParams,
  preconditions,
  stringParam,
} from './params.ts';
import { singleHeader } from '../single-header.ts';
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
    const asOf = stringParam(query, 'asOf');
    const list = {
      limit: integerParam(query, 'limit'),
      status: stringParam(query, 'status'),
      after: integerParam(query, 'after'),
    };
    const send = (page: PetsPage) => {
      if (page.nextAfter !== undefined) reply.header('Link', nextPageLink('/v1/pets', query, page.nextAfter));
      return reply.type(JSON_UTF8).send(petJson.page(page.pets));
    };
    if (asOf === undefined) return send(application.listPets(list));
    // The past is for auditors: the catalogue as of a time or position needs audit:read too.
    if (!request.hasScope('audit:read')) throw new InsufficientScopeError('audit:read');
    return application.listPetsAsOf({ ...list, asOf }).then(send);
  });

  app.post(
    '/pets',
    { config: WRITE, schema: { response: { 201: petResponseSchema } } },
    async (request, reply) => {
      onlyQueryParams(request, [], 'adding a pet takes none (its fields go in the body)');
      const idempotencyKey = singleHeader(request, 'Idempotency-Key');
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
      const id = idParam(request, 'petId');
      const asOf = stringParam(request.query as Record<string, unknown>, 'asOf');
      if (asOf === undefined) return sendRead(request, reply, application.getPet(id), `Pet ${id}`);
      // As for the list: the past is for auditors.
      if (!request.hasScope('audit:read')) throw new InsufficientScopeError('audit:read');
      return application.getPetAsOf(id, asOf).then((pet) => {
        if (pet === undefined) {
          throw new NotFoundError(
            `No pet had the id ${id} as of ${asOf}: it was not created yet, or was removed by then.`,
          );
        }
        return sendRead(request, reply, pet, `Pet ${id} as of ${asOf}`);
      });
    },
  );

  app.patch(
    '/pets/:petId',
    { config: WRITE, schema: { response: { 200: petResponseSchema } } },
    async (request, reply) => {
      onlyQueryParams(request, [], 'a patch takes none (its fields go in the body)');
      const { pet } = await application.updatePet(
        idParam(request, 'petId'),
        request.body,
        requestContext(request),
        preconditions(request),
      );
      return sendPet(reply, pet!);
    },
  );

  app.delete('/pets/:petId', { config: WRITE }, async (request, reply) => {
    onlyQueryParams(request, ['reason'], 'removing a pet takes only reason');
    noFields(request.body, 'removing a pet takes no fields (a reason goes in the query: ?reason=…)');
    const reason = stringParam(request.query as Record<string, unknown>, 'reason');
    await application.removePet(idParam(request, 'petId'), requestContext(request), {
      ...preconditions(request),
      ...(reason !== undefined && { reason }),
    });
    return reply.code(204).send();
  });

  allowOnly(app, '/pets', ['GET', 'HEAD', 'POST']);
  allowOnly(app, '/pets/:petId', ['GET', 'HEAD', 'PATCH', 'DELETE']);
}

/**
 * A read of one pet, now or as it was: its ETag is the version it has (or had), so If-None-Match
 * answers 304 and If-Match 412 against that version. A past read at a position or a time gone by
 * keeps its tag; one at a time still to come follows the pet, and its tag with it.
 */
function sendRead(request: FastifyRequest, reply: FastifyReply, pet: VersionedPet, what: string) {
  if (notModified(request.headers, what, pet.version)) {
    return reply.code(304).header('ETag', etagOf(pet.version)).send();
  }
  return sendPet(reply, pet);
}

function sendPet(reply: FastifyReply, pet: VersionedPet): FastifyReply {
  return reply.header('ETag', etagOf(pet.version)).send(pet);
}
