import { writeFileSync } from 'node:fs';
// The CommonJS entry that Pothos and Yoga load: under Vitest a bare 'graphql' import would load a
// second (ESM) copy, whose printer rejects the schema's types as "from another module or realm".
import { lexicographicSortSchema, printSchema } from 'graphql/index.js';
import { schema } from './index.ts';

/** The committed SDL, exactly as `schema:print` writes it; a test compares it with the code. */
export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

export const SCHEMA_FILE = new URL('../../../schema/schema.graphql', import.meta.url);

if (import.meta.main) {
  writeFileSync(SCHEMA_FILE, printedSchema());
  console.log(`Wrote ${SCHEMA_FILE.pathname}`);
}
