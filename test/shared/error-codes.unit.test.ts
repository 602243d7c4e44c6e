import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSchema, type GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/shared/errors.ts';
import { openApiDocument } from '../support/openapi.ts';

const SDL = readFileSync(path.resolve(import.meta.dirname, '../../schema/schema.graphql'), 'utf8');
const README = readFileSync(path.resolve(import.meta.dirname, '../../README.md'), 'utf8');

/** The codes named in the code column of the README's table of errors. */
function readmeErrorTableCodes(): string[] {
  const table = README.slice(
    README.indexOf('| status | code '),
    README.indexOf('Every response carries an `X-Request-Id`'),
  );
  return table
    .split('\n')
    .flatMap((row) => [...(row.split('|')[2] ?? '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!));
}

describe('the closed set of error codes', () => {
  it('is exactly what the OpenAPI document lists for the Error body', () => {
    expect(openApiDocument.components.schemas.Error.properties.code.enum).toEqual([...ERROR_CODES]);
  });

  it('is exactly what the committed GraphQL schema lists as ErrorCode', () => {
    const enumType = buildSchema(SDL).getType('ErrorCode') as GraphQLEnumType;
    expect(enumType.getValues().map((value) => value.name)).toEqual([...ERROR_CODES].sort());
  });

  it("is exactly what the README's table of errors names", () => {
    expect(readmeErrorTableCodes().sort()).toEqual([...ERROR_CODES].sort());
  });

  it('holds no code twice', () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });
});
