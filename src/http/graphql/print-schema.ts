import { writeFileSync } from 'node:fs';
import { lexicographicSortSchema, printSchema } from 'graphql';
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
