import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { MAX_PET_ID, PET_STATUSES } from '../../src/domain/pets.ts';
import { PET_NAME_MAX_LENGTH } from '../../src/domain/pet-rules.ts';
import {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
} from '../../src/application/queries/list-pets.ts';
import { openApiDocument } from '../support/openapi.ts';

describe('schema/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await validate(structuredClone(openApiDocument) as never);
    expect(result.valid ? '' : compileErrors(result)).toBe('');
    expect(openApiDocument.openapi).toBe('3.1.0');
  });

  it('states the same NewPet rules as the domain', () => {
    const newPet = openApiDocument.components.schemas.NewPet;
    expect(newPet.properties.name.maxLength).toBe(PET_NAME_MAX_LENGTH);
    expect(newPet.properties.categoryId.maximum).toBe(MAX_PET_ID);
    expect(openApiDocument.components.schemas.PetStatus.enum).toEqual([...PET_STATUSES]);
  });

  it('states the same list limits as the query layer', () => {
    const limit = openApiDocument.paths['/pets'].get.parameters.find(
      (p) => 'name' in p && p.name === 'limit',
    )!.schema!;
    expect([limit.minimum, limit.maximum, limit.default]).toEqual([
      LIST_LIMIT_MIN,
      LIST_LIMIT_MAX,
      LIST_LIMIT_DEFAULT,
    ]);
  });
});
