import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors.ts';
import { openApiDocument } from '../support/openapi.ts';

const SDL = readFileSync(path.resolve(import.meta.dirname, '../../schema/schema.graphql'), 'utf8');

describe('the closed set of error codes', () => {
  it('is exactly what the OpenAPI document lists for the Error body', () => {
    expect(openApiDocument.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it('is exactly what the committed GraphQL schema lists as ErrorCode', () => {
    const enumType = buildSchema(SDL).getType('ErrorCode') as GraphQLEnumType;
    expect(enumType.getValues().map((value) => value.name)).toEqual([...ERROR_CODES].sort());
  });

  it('holds no code twice', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});
