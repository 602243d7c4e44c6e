import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ValidationError, IdempotencyKeyReusedError } from '../../src/shared/errors.ts';
import { startTestApp, type TestApp } from '../support/app.ts';
import { idempotencyStreamName, requestHash } from '../../src/domain/idempotency.ts';

let testApp: TestApp;
const context = { correlationId: 'test-correlation' };

beforeEach(async () => {
  testApp = await startTestApp();
});
afterEach(async () => {
  await testApp.close();
});

describe('createPet', () => {
  it('appends PetCreated to the pet’s stream with versioned metadata', async () => {
    const { pet } = await testApp.application.createPet(
      { name: 'Rex', categoryId: 3 },
      { correlationId: 'c-1', apiKeyId: 'key-9' },
    );
    const [event] = await testApp.store.readStream(`pet-${pet.id}`);
    expect(event?.type).toBe('PetCreated');
    expect(event?.data).toEqual({ id: pet.id, name: 'Rex', categoryId: 3 });
    expect(event?.metadata).toMatchObject({ correlationId: 'c-1', apiKeyId: 'key-9', schemaVersion: 1 });
    expect(event?.metadata.eventId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(event!.metadata.occurredAt))).toBe(false);
  });

  it('makes the new pet readable as soon as it returns (read-your-writes)', async () => {
    const { pet } = await testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context);
    expect(testApp.application.getPet(pet.id)).toEqual(pet);
  });

  it('writes nothing for invalid input', async () => {
    const head = await testApp.store.headPosition();
    await expect(testApp.application.createPet({ name: '', categoryId: 3 }, context)).rejects.toThrow(
      ValidationError,
    );
    expect(await testApp.store.headPosition()).toBe(head);
  });

  it('gives 200 concurrent creations 200 distinct ids', async () => {
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        testApp.application.createPet({ name: `Pet ${i}`, categoryId: 1 }, context),
      ),
    );
    expect(new Set(created.map((c) => c.pet.id)).size).toBe(200);
  });
});

describe('createPet with an idempotency key', () => {
  it('returns the first pet again for a retry with the same body, and creates nothing', async () => {
    const first = await testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, {
      idempotencyKey: 'k-1',
    });
    const retry = await testApp.application.createPet({ categoryId: 3, name: 'Rex' }, context, {
      idempotencyKey: 'k-1',
    });
    expect(retry).toEqual({ pet: first.pet, replayed: true });
    expect(testApp.application.listPets({ limit: 100 }).pets).toHaveLength(1);
  });

  it('replays the first response even after the pet changed, and after it was removed', async () => {
    const body = { name: 'Rex', categoryId: 3 };
    const first = await testApp.application.createPet(body, context, { idempotencyKey: 'k-removed' });
    await testApp.application.updatePet(first.pet.id, { name: 'Max' }, context);
    const afterChange = await testApp.application.createPet(body, context, { idempotencyKey: 'k-removed' });
    await testApp.application.removePet(first.pet.id, context);
    const afterRemoval = await testApp.application.createPet(body, context, { idempotencyKey: 'k-removed' });
    expect([afterChange, afterRemoval]).toEqual([
      { pet: first.pet, replayed: true },
      { pet: first.pet, replayed: true },
    ]);
    expect(await testApp.store.readStream(`pet-${first.pet.id}`)).toHaveLength(3);
  });

  it('refuses the same key with a different body', async () => {
    await testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, { idempotencyKey: 'k-1' });
    await expect(
      testApp.application.createPet({ name: 'Tom', categoryId: 3 }, context, { idempotencyKey: 'k-1' }),
    ).rejects.toThrow(IdempotencyKeyReusedError);
  });

  it('creates one pet for concurrent requests with the same key', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, { idempotencyKey: 'k-race' }),
      ),
    );
    expect(new Set(results.map((r) => r.pet.id)).size).toBe(1);
    expect(results.filter((r) => !r.replayed)).toHaveLength(1);
    expect(testApp.application.listPets({ limit: 100 }).pets).toHaveLength(1);
  });

  it('keeps keys of different API keys apart', async () => {
    const a = await testApp.application.createPet(
      { name: 'Rex', categoryId: 3 },
      { ...context, apiKeyId: 'a' },
      { idempotencyKey: 'k' },
    );
    const b = await testApp.application.createPet(
      { name: 'Rex', categoryId: 3 },
      { ...context, apiKeyId: 'b' },
      { idempotencyKey: 'k' },
    );
    expect(a.pet.id).not.toBe(b.pet.id);
  });

  it('accepts a key of 255 visible characters, the longest there may be', async () => {
    const created = await testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, {
      idempotencyKey: '~'.repeat(255),
    });
    expect(created.replayed).toBe(false);
  });

  it('tells the client what a key must be when it refuses one', async () => {
    await expect(
      testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, { idempotencyKey: 'a b' }),
    ).rejects.toMatchObject({ message: 'Idempotency-Key must be 1 to 255 visible ASCII characters.' });
  });

  it('fails with the store’s error when the claim cannot be written, rather than claiming again', async () => {
    const append = testApp.store.appendToStream.bind(testApp.store);
    const broken = new Error('disk full');
    vi.spyOn(testApp.store, 'appendToStream').mockImplementation((stream, events, options) =>
      stream.startsWith('idempotency-') ? Promise.reject(broken) : append(stream, events, options),
    );
    await expect(
      testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, { idempotencyKey: 'k-broken' }),
    ).rejects.toBe(broken);
  });

  it.each([[''], ['has space'], ['x'.repeat(256)], ['naïve']])(
    'rejects the malformed key %j',
    async (key) => {
      await expect(
        testApp.application.createPet({ name: 'Rex', categoryId: 3 }, context, { idempotencyKey: key }),
      ).rejects.toMatchObject({ code: 'validation_failed', field: 'Idempotency-Key' });
    },
  );
});

describe('createPet with an idempotency key after a crash', () => {
  const claim = (petId: number, requestHash: string) => ({
    type: 'IdempotencyKeyClaimed',
    data: { petId, requestHash, expiresAt: '2099-01-01T00:00:00.000Z' },
    metadata: {
      eventId: randomUUID(),
      occurredAt: '2026-01-01T00:00:00.000Z',
      correlationId: 'c',
      schemaVersion: 1,
    },
  });

  it('creates the pet a claim promised when the claiming request died before creating it', async () => {
    const body = { name: 'Rex', categoryId: 3 };
    await testApp.store.appendToStream(idempotencyStreamName('anonymous', 'k-crash'), [
      claim(424242, requestHash(body)),
    ]);
    const retry = await testApp.application.createPet(body, context, { idempotencyKey: 'k-crash' });
    expect(retry).toEqual({
      pet: { id: 424242, name: 'Rex', categoryId: 3, version: 0 },
      replayed: true,
      position: expect.any(BigInt),
    });
    expect(testApp.application.getPet(424242)).toEqual(retry.pet);
  });

  it('returns the pet another request created between its claim and this retry', async () => {
    const body = { name: 'Rex', categoryId: 3 };
    await testApp.store.appendToStream(idempotencyStreamName('anonymous', 'k-race-2'), [
      claim(515151, requestHash(body)),
    ]);
    await testApp.store.appendToStream('pet-515151', [
      { ...claim(0, ''), type: 'PetCreated', data: { id: 515151, name: 'Rex', categoryId: 3 } },
    ]);
    const retry = await testApp.application.createPet(body, context, { idempotencyKey: 'k-race-2' });
    expect(retry).toEqual({ pet: { id: 515151, name: 'Rex', categoryId: 3, version: 0 }, replayed: true });
    expect(await testApp.store.readStream('pet-515151')).toHaveLength(1);
  });
});
