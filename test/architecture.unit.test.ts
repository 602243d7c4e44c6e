import path from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Runs dependency-cruiser over the whole tree with the rules of .dependency-cruiser.cjs. */
async function violations(): Promise<string[]> {
  const { default: config } = (await import(path.join(ROOT, '.dependency-cruiser.cjs'))) as {
    default: { forbidden: unknown[]; options: Record<string, unknown> };
  };
  const previous = process.cwd();
  process.chdir(ROOT);
  try {
    const result = await cruise(['src', 'projections', 'bin'], {
      ...config.options,
      validate: true,
      ruleSet: { forbidden: config.forbidden },
    } as never);
    const output = result.output as ICruiseResult;
    return output.summary.violations.map(
      (violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`,
    );
  } finally {
    process.chdir(previous);
  }
}

it('keeps every import with the grain of the layers, and no import cycle anywhere in the tree', async () => {
  expect(await violations()).toEqual([]);
}, 60_000);
