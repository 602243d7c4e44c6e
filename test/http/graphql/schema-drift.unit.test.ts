import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
} from '../../../src/application/queries/list-pets.ts';
import { MAX_PET_ID } from '../../../src/domain/pets.ts';
import { PET_NAME_MAX_LENGTH } from '../../../src/domain/pet-rules.ts';
import { printedSchema, SCHEMA_FILE } from '../../../src/http/graphql/print-schema.ts';

describe('schema/schema.graphql', () => {
  it('is exactly the SDL the code builds (run `npm run schema:print` after changing a type)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });

  it('states the domain’s limits as the code has them, so that changing a rule changes the SDL', () => {
    const sdl = printedSchema();
    expect(sdl).toContain(`"""Not blank, at most ${PET_NAME_MAX_LENGTH} characters."""`);
    expect(sdl).toContain(`"""Assigned by the service; at most ${MAX_PET_ID}."""`);
    expect(sdl).toContain(`(first is ${LIST_LIMIT_MIN} to ${LIST_LIMIT_MAX}, default ${LIST_LIMIT_DEFAULT})`);
  });
});
