import {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
} from '../../../application/queries/list-pets.ts';
import type { PetChange, PetsPage } from '../../../application/index.ts';
import { MAX_PET_ID, type VersionedPet } from '../../../domain/pets.ts';
import { withArgumentNames } from '../argument-names.ts';
import { builder } from '../builder.ts';
import { decodeCursor } from '../cursor.ts';
import { connection, exposedConnection } from '../page.ts';
import { noteStorePosition } from '../store-position.ts';
import { accessWatch } from '../../access-watch.ts';
import { petChanges } from '../../change-streams.ts';
import { RESUME_AFTER } from './resume-after.ts';
import { PetStatus } from './pet-status.ts';
import { SafeInt } from './safe-int.ts';

export const Pet = builder.objectRef<VersionedPet>('Pet').implement({
  description: 'An animal offered in the store.',
  fields: (t) => ({
    id: t.expose('id', { type: SafeInt, description: `Assigned by the service; at most ${MAX_PET_ID}.` }),
    name: t.exposeString('name'),
    categoryId: t.expose('categoryId', { type: SafeInt }),
    // Exposed rather than resolved: graphql-jit reads a field without a resolver inline, where a
    // resolver costs a call, a resolve info and a path per pet. An absent status is null either way.
    status: t.expose('status', { type: PetStatus, nullable: true }),
    version: t.exposeInt('version', {
      description:
        'The revision of the pet’s stream: 0 when created, one more per change. REST sends it as the ETag; ' +
        'pass it as expectedVersion to change the pet only if nobody changed it meanwhile.',
    }),
  }),
});

const PET_ARGUMENTS = new Map([['petId', 'id']]);
/** Reading the past needs both scopes: the catalogue's and the auditor's. */
const PAST = ['pets:read', 'audit:read'] as const;
const AS_OF =
  'The past (needs audit:read): an RFC 3339 time (each pet as of its last event then) or a store position.';
const PETS_ARGUMENTS = new Map([['limit', 'first']]);

const PetConnection = exposedConnection(Pet, { connection: 'PetConnection', edge: 'PetEdge' });

builder.queryFields((t) => ({
  pet: t.field({
    type: Pet,
    nullable: true,
    authScopes: (_root, args) => (args.asOf == null ? { scope: 'pets:read' } : { allOf: PAST }),
    description:
      'One pet by id. When there is none: null, with an error whose extensions.code is not_found ' +
      '(pet_removed once removed). With asOf (audit:read): the pet as it was then, null (and no error) ' +
      'when it did not exist yet or was removed by then (REST: GET /v1/pets/{petId}?asOf=…, a 404 instead).',
    args: { id: t.arg({ type: SafeInt, required: true }), asOf: t.arg.string({ description: AS_OF }) },
    resolve: (_root, args, { application }) =>
      withArgumentNames(PET_ARGUMENTS, () =>
        args.asOf == null
          ? application.getPet(args.id)
          : application.getPetAsOf(args.id, args.asOf).then((pet) => pet ?? null),
      ),
  }),
  pets: t.field({
    type: PetConnection,
    nullable: true,
    authScopes: (_root, args) => (args.asOf == null ? { scope: 'pets:read' } : { allOf: PAST }),
    description:
      'Pets in ascending id order, a page at a time: the REST list rules ' +
      `(first is ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT}). ` +
      'Pass pageInfo.endCursor as after for the next page; only forward paging is offered.',
    args: {
      first: t.arg.int(),
      after: t.arg.string(),
      status: t.arg({ type: PetStatus }),
      asOf: t.arg.string({ description: AS_OF }),
    },
    resolve: (_root, args, { application }) => {
      const query = {
        ...(args.first != null && { limit: args.first }),
        ...(args.status != null && { status: args.status }),
        ...(args.after != null && { after: decodeCursor('pet', args.after) }),
      };
      const asPage = (page: PetsPage) =>
        connection('pet', page.pets, page.nextAfter !== undefined, undefined, page.nextAfter);
      if (args.asOf == null)
        return asPage(withArgumentNames(PETS_ARGUMENTS, () => application.listPets(query)));
      return withArgumentNames(PETS_ARGUMENTS, () =>
        application.listPetsAsOf({ ...query, asOf: args.asOf! }),
      ).then(asPage);
    },
  }),
}));

builder.subscriptionFields((t) => ({
  petCreated: t.field({
    type: Pet,
    authScopes: { scope: 'pets:read' },
    description:
      'Every pet created from the moment of subscribing, in the order the store recorded them. Each event ' +
      'carries its store position in `extensions.storePosition`; to resume after a disconnection, subscribe ' +
      'again with `after` set to the last one received: the pets created since are delivered first.',
    args: { after: t.arg.string({ description: RESUME_AFTER }) },
    subscribe: (_root, { after }, { application, closing, req, reply }) =>
      petChanges(
        application,
        after,
        { closing, reply, watch: accessWatch(req, ['pets:read']) },
        (change) => change.type === 'created',
      ),
    resolve: (change, _args, context) => {
      noteStorePosition(context, change.position);
      return (change as Extract<PetChange, { pet: VersionedPet }>).pet;
    },
  }),
}));
