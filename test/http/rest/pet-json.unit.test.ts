import { expect, it } from 'vitest';
import type { VersionedPet as Pet } from '../../../src/domain/pets.ts';
import { PetJsonCache } from '../../../src/http/rest/pet-json.ts';
import { openApiMismatches } from '../../support/openapi.ts';

const rex: Pet = { id: 1, name: 'Rex "the" dog', categoryId: 2, status: 'available', version: 0 };
const tom: Pet = { id: 2, name: 'Tom', categoryId: 3, status: undefined, version: 0 };

/** Stands for an event whose data carries more than the schema knows (an older writer, say). */
const withExtra = {
  id: 3,
  name: 'Kit',
  categoryId: 1,
  version: 0,
  secretNote: 'not for clients',
} as unknown as Pet;

function pets(count: number): Pet[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    name: `Pet ${i + 1}`,
    categoryId: 1,
    version: 0,
  }));
}

/** Changes a pet behind the cache's back: what is then served tells whether its JSON was reused. */
function rename(pet: Pet, name: string): void {
  (pet as { name: string }).name = name;
}

it('renders a page as the JSON array of its pets, in the order given, escaping names', () => {
  expect(new PetJsonCache().list([tom, rex])).toBe(
    '[{"id":2,"name":"Tom","categoryId":3},{"id":1,"name":"Rex \\"the\\" dog","categoryId":2,"status":"available"}]',
  );
});

it('renders exactly what the OpenAPI document promises for GET /pets', () => {
  const body = new PetJsonCache().list([rex, tom, withExtra]);
  const headers = { 'content-type': 'application/json; charset=utf-8' };
  expect(openApiMismatches('GET', '/pets', { statusCode: 200, body, headers })).toEqual([]);
});

it('renders an empty page as []', () => {
  expect(new PetJsonCache().list([])).toBe('[]');
});

it('serialises a pet anew once its version changes', () => {
  const cache = new PetJsonCache();
  const pet = pets(1)[0]!;
  cache.list([pet]);
  expect(cache.pet({ ...pet, name: 'Renamed', version: 1 })).toBe('{"id":1,"name":"Renamed","categoryId":1}');
});

it('leaves out fields the response schema does not describe, the version and an undefined status among them', () => {
  expect(new PetJsonCache().list([withExtra, tom])).toBe(
    '[{"id":3,"name":"Kit","categoryId":1},{"id":2,"name":"Tom","categoryId":3}]',
  );
});

it('serialises a version of a pet once and reuses its JSON on the next page that holds it', () => {
  const cache = new PetJsonCache();
  const pet = pets(1)[0]!;
  cache.list([pet]);
  rename(pet, 'Renamed');
  expect(cache.list([pet])).toBe('[{"id":1,"name":"Pet 1","categoryId":1}]');
});

it('holds at most two generations of entries, dropping the oldest whole', () => {
  const cache = new PetJsonCache(2);
  cache.list(pets(5));
  expect(cache.size).toBe(3);
});

it('keeps the entry of a pet asked for again before its generation is dropped', () => {
  const cache = new PetJsonCache(2);
  const [first, second, third, fourth] = pets(4);
  cache.list([first!, second!]);
  cache.list([first!, third!]);
  cache.list([fourth!]);
  rename(first!, 'Renamed');
  expect(cache.pet(first!)).toBe('{"id":1,"name":"Pet 1","categoryId":1}');
});

it('serialises anew a pet whose entry was dropped', () => {
  const cache = new PetJsonCache(2);
  const all = pets(5);
  cache.list(all);
  rename(all[0]!, 'Renamed');
  expect(cache.pet(all[0]!)).toBe('{"id":1,"name":"Renamed","categoryId":1}');
});

it('gives a page as its JSON array', () => {
  const cache = new PetJsonCache();
  expect(cache.page([tom, rex])).toBe(new PetJsonCache().list([tom, rex]));
  expect(cache.page([])).toBe('[]');
});

it('reuses the JSON of a page whose pets all keep their versions', () => {
  const cache = new PetJsonCache();
  const page = pets(3);
  cache.page(page);
  rename(page[1]!, 'Renamed');
  expect(cache.page(page)).toBe(
    '[{"id":1,"name":"Pet 1","categoryId":1},{"id":2,"name":"Pet 2","categoryId":1},{"id":3,"name":"Pet 3","categoryId":1}]',
  );
});

it('makes a page anew once one of its pets has another version', () => {
  const cache = new PetJsonCache();
  const page = pets(3);
  cache.page(page);
  const changed = [page[0]!, { ...page[1]!, name: 'Renamed', version: 1 }, page[2]!];
  expect(cache.page(changed)).toBe(
    '[{"id":1,"name":"Pet 1","categoryId":1},{"id":2,"name":"Renamed","categoryId":1},{"id":3,"name":"Pet 3","categoryId":1}]',
  );
});

it('makes a page anew once another pet takes a place in it', () => {
  const cache = new PetJsonCache();
  const [first, second, third] = pets(3);
  cache.page([first!, second!, third!]);
  const other: Pet = { id: 9, name: 'Other', categoryId: 1, version: 0 };
  expect(cache.page([first!, other, third!])).toBe(
    '[{"id":1,"name":"Pet 1","categoryId":1},{"id":9,"name":"Other","categoryId":1},{"id":3,"name":"Pet 3","categoryId":1}]',
  );
});

it('answers a list it made the JSON for without reading its pets again', () => {
  const cache = new PetJsonCache();
  const page = pets(2);
  const json = cache.page(page);
  // Modifying a list once given breaks the contract of page(); here it shows the pets are not read.
  page[0] = { id: 1, name: 'Changed', categoryId: 1, version: 1 };
  expect(cache.page(page)).toBe(json);
});
