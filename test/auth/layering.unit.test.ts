import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';

const AUTH = path.resolve(import.meta.dirname, '../../src/auth');

it('keeps src/auth free of the HTTP layer: the guard is composed in src/server.ts', () => {
  const importsOfHttp = readdirSync(AUTH)
    .filter((file) => file.endsWith('.ts'))
    .filter((file) => /from '\.\.\/http\//.test(readFileSync(path.join(AUTH, file), 'utf8')));
  expect(importsOfHttp).toEqual([]);
});
