import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { printedSchema, SCHEMA_FILE } from '../../../src/http/graphql/print-schema.ts';

describe('schema/schema.graphql', () => {
  it('is exactly the SDL the code builds (run `npm run schema:print` after changing a type)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printedSchema());
  });
});
