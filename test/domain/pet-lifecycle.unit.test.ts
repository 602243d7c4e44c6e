import { describe, expect, it } from 'vitest';
import {
  decideRemovePet,
  decideUpdatePet,
  evolvePet,
  InvalidStatusTransitionError,
  type Pet,
  type PetEvent,
  PetHeldByOrderError,
  PetRemovedError,
  type PetState,
  STATUS_TRANSITIONS,
} from '../../src/domain/pets.ts';
import { validatePetPatch } from '../../src/domain/pet-rules.ts';
import { NotFoundError, ValidationError } from '../../src/shared/errors.ts';

/** given(events).when(command).then(events), in the domain's own terms. */
const given = (...events: PetEvent[]): PetState => events.reduce<PetState>(evolvePet, undefined);
const rex: Pet = { id: 7, name: 'Rex', categoryId: 1, status: 'available' };
const created: PetEvent = { type: 'PetCreated', data: rex };

describe('validatePetPatch', () => {
  it('keeps only the fields a patch holds', () => {
    expect(validatePetPatch({ status: 'sold' })).toStrictEqual({ status: 'sold' });
  });

  it('keeps a name alone, without a status it did not hold', () => {
    expect(validatePetPatch({ name: 'Max' })).toStrictEqual({ name: 'Max' });
  });

  it.each([['name'], ['categoryId'], ['status']])(
    'refuses null for %s, which a pet always keeps',
    (field) => {
      expect(() => validatePetPatch({ [field]: null })).toThrow(
        new ValidationError(`${field} cannot be removed; give it a value.`, field),
      );
    },
  );

  it.each([
    [{ id: 8 }, 'id'],
    [{ colour: 'red' }, 'colour'],
    [{ name: null }, 'name'],
    [{ categoryId: null }, 'categoryId'],
    [{ status: null }, 'status'],
    [{ name: '' }, 'name'],
    [{ categoryId: 0 }, 'categoryId'],
    [{ status: 'lost' }, 'status'],
  ])('refuses %j naming the field %s, by the rules of a new pet', (patch, field) => {
    expect(() => validatePetPatch(patch)).toThrow(ValidationError);
    try {
      validatePetPatch(patch);
    } catch (error) {
      expect((error as ValidationError).field).toBe(field);
    }
  });

  it.each([[null], [[]], ['Rex']])('refuses the body %j that is no object', (patch) => {
    expect(() => validatePetPatch(patch)).toThrow(
      'The body must be a JSON object (a merge patch of name, categoryId, status).',
    );
  });
});

describe('decideUpdatePet', () => {
  it('decides an event per kind of change, with the values it replaces', () => {
    expect(decideUpdatePet(given(created), 7, { name: 'Max', categoryId: 2, status: 'pending' })).toEqual([
      { type: 'PetRenamed', data: { id: 7, name: 'Max', previousName: 'Rex' } },
      { type: 'PetRecategorised', data: { id: 7, categoryId: 2, previousCategoryId: 1 } },
      { type: 'PetStatusChanged', data: { id: 7, status: 'pending', previousStatus: 'available' } },
    ]);
  });

  it('decides nothing for a patch that changes nothing', () => {
    expect(decideUpdatePet(given(created), 7, { name: 'Rex', status: 'available' })).toEqual([]);
  });

  it('decides nothing for a patch that repeats the pet’s category', () => {
    expect(decideUpdatePet(given(created), 7, { categoryId: 1 })).toEqual([]);
  });

  it('renames a pet without touching its status when the patch holds none', () => {
    expect(decideUpdatePet(given(created), 7, { name: 'Max' })).toEqual([
      { type: 'PetRenamed', data: { id: 7, name: 'Max', previousName: 'Rex' } },
    ]);
  });

  it('records no previous status, nor an order, for a pet created without a status', () => {
    const plain = given({ type: 'PetCreated', data: { id: 7, name: 'Rex', categoryId: 1 } });
    expect(decideUpdatePet(plain, 7, { status: 'sold' })).toStrictEqual([
      { type: 'PetStatusChanged', data: { id: 7, status: 'sold' } },
    ]);
  });

  it('refuses a status change the transition table forbids, naming what is allowed', () => {
    const sold = given(created, {
      type: 'PetStatusChanged',
      data: { id: 7, status: 'sold', previousStatus: 'available' },
    });
    expect(() => decideUpdatePet(sold, 7, { status: 'available' })).toThrow(
      new InvalidStatusTransitionError('sold', 'available'),
    );
    expect(new InvalidStatusTransitionError('sold', 'available')).toMatchObject({
      code: 'invalid_status_transition',
      status: 409,
      message: 'A pet that is sold cannot become available; it is final.',
    });
  });

  it('lets a pet created without a status take any', () => {
    const plain = given({ type: 'PetCreated', data: { id: 7, name: 'Rex', categoryId: 1 } });
    expect(decideUpdatePet(plain, 7, { status: 'sold' })).toEqual([
      { type: 'PetStatusChanged', data: { id: 7, status: 'sold' } },
    ]);
  });

  it.each([
    ['available', 'pending'],
    ['available', 'sold'],
    ['pending', 'available'],
    ['pending', 'sold'],
  ] as const)('allows %s → %s', (from, to) => {
    expect(STATUS_TRANSITIONS[from]).toContain(to);
  });

  it('renames a pet an order holds when the patch repeats its status, which changes nothing', () => {
    const held = given(created, {
      type: 'PetStatusChanged',
      data: { id: 7, status: 'pending', previousStatus: 'available', orderId: 3 },
    });
    expect(decideUpdatePet(held, 7, { name: 'Max', status: 'pending' })).toEqual([
      { type: 'PetRenamed', data: { id: 7, name: 'Max', previousName: 'Rex' } },
    ]);
  });

  it('refuses to change the status of a pet an order holds', () => {
    const held = given(created, {
      type: 'PetStatusChanged',
      data: { id: 7, status: 'pending', previousStatus: 'available', orderId: 3 },
    });
    expect(() => decideUpdatePet(held, 7, { status: 'available' })).toThrow(new PetHeldByOrderError(7, 3));
  });

  it('answers not_found for a pet that never existed', () => {
    expect(() => decideUpdatePet(undefined, 7, { name: 'Max' })).toThrow(NotFoundError);
  });

  it('answers pet_removed for a removed pet', () => {
    const removed = given(created, { type: 'PetRemoved', data: { id: 7 } });
    expect(() => decideUpdatePet(removed, 7, { name: 'Max' })).toThrow(PetRemovedError);
  });
});

describe('decideRemovePet', () => {
  it('decides PetRemoved with the reason given', () => {
    expect(decideRemovePet(given(created), 7, 'adopted')).toEqual({
      type: 'PetRemoved',
      data: { id: 7, reason: 'adopted' },
    });
  });

  it('refuses to remove a pet twice', () => {
    const removed = given(created, decideRemovePet(given(created), 7, undefined));
    expect(() => decideRemovePet(removed, 7, undefined)).toThrow(PetRemovedError);
  });

  it('records no reason when none is given', () => {
    expect(decideRemovePet(given(created), 7, undefined)).toStrictEqual({
      type: 'PetRemoved',
      data: { id: 7 },
    });
  });

  it('removes a pet once the order that held it was cancelled, which let it go', () => {
    const released = given(
      created,
      {
        type: 'PetStatusChanged',
        data: { id: 7, status: 'pending', previousStatus: 'available', orderId: 3 },
      },
      {
        type: 'PetStatusChanged',
        data: { id: 7, status: 'available', previousStatus: 'pending', orderId: 3 },
      },
    );
    expect(decideRemovePet(released, 7, undefined)).toStrictEqual({ type: 'PetRemoved', data: { id: 7 } });
  });

  it('refuses to remove a pet an order holds with 409 pet_held_by_order', () => {
    const held = given(created, {
      type: 'PetStatusChanged',
      data: { id: 7, status: 'pending', previousStatus: 'available', orderId: 3 },
    });
    expect(() => decideRemovePet(held, 7, undefined)).toThrow(new PetHeldByOrderError(7, 3));
    expect(new PetHeldByOrderError(7, 3)).toMatchObject({ code: 'pet_held_by_order', status: 409 });
  });
});

describe('evolvePet', () => {
  it('folds every change into the pet', () => {
    expect(
      given(
        created,
        { type: 'PetRenamed', data: { id: 7, name: 'Max', previousName: 'Rex' } },
        { type: 'PetRecategorised', data: { id: 7, categoryId: 3, previousCategoryId: 1 } },
        { type: 'PetStatusChanged', data: { id: 7, status: 'sold', previousStatus: 'available' } },
      ),
    ).toEqual({ kind: 'live', pet: { id: 7, name: 'Max', categoryId: 3, status: 'sold' } });
  });
});
