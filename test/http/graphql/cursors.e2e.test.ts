import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { encodeCursor } from '../../../src/http/graphql/cursor.ts';
import { startTestApp, type TestApp } from '../../support/app.ts';

vi.mock('../../../src/http/graphql/cursor.ts', async (original) => {
  const actual = await original<typeof import('../../../src/http/graphql/cursor.ts')>();
  return { ...actual, encodeCursor: vi.fn(actual.encodeCursor) };
});

let testApp: TestApp;
beforeAll(async () => {
  testApp = await startTestApp();
  for (let i = 0; i < 5; i++) {
    await testApp.application.createPet({ name: `Pet ${i}`, categoryId: 1 }, { correlationId: 'seed' });
  }
});
afterAll(() => testApp.close());

async function query(selection: string) {
  vi.mocked(encodeCursor).mockClear();
  const response = await testApp.app.inject({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ query: `{ pets(first: 5) { ${selection} } }` }),
  });
  expect(response.json().errors).toBeUndefined();
  return vi.mocked(encodeCursor).mock.calls.length;
}

describe('PetConnection cursors', () => {
  it('are not encoded when no cursor is selected', async () => {
    expect(await query('edges { node { id name } } pageInfo { hasNextPage }')).toBe(0);
  });

  it('are encoded once for each one selected', async () => {
    expect(await query('edges { cursor node { id } }')).toBe(5);
    expect(await query('pageInfo { startCursor endCursor }')).toBe(2);
    expect(await query('edges { cursor } pageInfo { startCursor endCursor }')).toBe(5);
  });
});
