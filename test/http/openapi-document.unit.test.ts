import { readFileSync } from 'node:fs';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { MAX_PET_ID, PET_STATUSES } from '../../src/domain/pets.ts';
import { PET_NAME_MAX_LENGTH } from '../../src/domain/pet-rules.ts';
import {
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_LIMIT_MIN,
} from '../../src/application/queries/list-pets.ts';
import { openApiDocument, resolveRef } from '../support/openapi.ts';

type Json = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every response the document promises, as "METHOD path status" with its header names. */
function documentedResponses(): { response: string; path: string; headers: string[] }[] {
  return Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, Json>>).flatMap(
    ([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .flatMap(([method, operation]) =>
          Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => ({
            response: `${method.toUpperCase()} ${path} ${status}`,
            path,
            headers: Object.keys(resolveRef(response).headers ?? {}),
          })),
        ),
  );
}

/** Every operation the document holds, as "METHOD path" with the names of its parameters. */
function documentedOperations(): { operation: string; path: string; parameters: string[] }[] {
  return Object.entries(openApiDocument.paths as unknown as Record<string, Record<string, Json>>).flatMap(
    ([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => HTTP_METHODS.includes(method))
        .map(([method, operation]) => ({
          operation: `${method.toUpperCase()} ${path}`,
          path,
          parameters: ((operation.parameters ?? []) as Json[]).map(
            (parameter) => resolveRef(parameter).name as string,
          ),
        })),
  );
}

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit-Policy',
  'RateLimit',
];

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

  it('documents the rate-limit headers on every response of every limited operation, errors included', () => {
    const lacking = documentedResponses()
      .filter(({ path }) => !path.startsWith('/health'))
      .filter(({ headers }) => RATE_LIMIT_HEADERS.some((name) => !headers.includes(name)))
      .map(({ response }) => response);
    expect(lacking).toEqual([]);
  });

  it('documents X-Request-Id on every response', () => {
    const lacking = documentedResponses()
      .filter(({ headers }) => !headers.includes('X-Request-Id'))
      .map(({ response }) => response);
    expect(lacking).toEqual([]);
  });

  it('documents X-Min-Position on every operation, as every route but the health probes waits for it', () => {
    const lacking = documentedOperations()
      .filter(({ path }) => !path.startsWith('/health'))
      .filter(({ parameters }) => !parameters.includes('X-Min-Position'))
      .map(({ operation }) => operation);
    expect(lacking).toEqual([]);
  });

  it('documents the deprecation headers on every response of GET /pets/{petId}', () => {
    const lacking = documentedResponses()
      .filter(({ response }) => response.startsWith('GET /pets/{petId} '))
      .filter(({ headers }) => ['Deprecation', 'Sunset', 'Link'].some((name) => !headers.includes(name)))
      .map(({ response }) => response);
    expect(lacking).toEqual([]);
  });

  it('holds no component that no operation uses, which generated clients would carry as dead types', () => {
    const used = JSON.stringify(openApiDocument.paths) + JSON.stringify(openApiDocument.components);
    const unused = Object.entries(openApiDocument.components as unknown as Record<string, Json>)
      .filter(([kind]) => kind !== 'securitySchemes')
      .flatMap(([kind, components]) => Object.keys(components).map((name) => `#/components/${kind}/${name}`))
      .filter((ref) => !used.includes(JSON.stringify(ref)));
    expect(unused).toEqual([]);
  });

  it('holds no number that parsing rounds, so the document served is the one committed', () => {
    const text = readFileSync(path.resolve(import.meta.dirname, '../../schema/openapi.json'), 'utf8');
    const rounded: string[] = [];
    JSON.parse(text, (_key, value: unknown, context?: { source?: string }) => {
      const source = context?.source;
      if (typeof value === 'number' && source !== undefined && /^-?\d+$/.test(source))
        if (BigInt(source) !== BigInt(value)) rounded.push(source);
      return value;
    });
    expect(rounded).toEqual([]);
  });
});
