import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './usage-error.ts';

/**
 * node:util's parseArgs, with a rule every command keeps: a flag given an empty value is a usage
 * mistake, not a fallback (`--data-dir ""` would otherwise make a new store in `.data`). A flag given
 * twice keeps its last value, as in most command lines, so that a wrapper's defaults can be overridden.
 * `leftOut` names what a flag left out stands for, for the message about an empty one.
 */
export function parseCommandLine<const T extends ParseArgsConfig>(
  config: T,
  leftOut: (flag: string) => string | undefined = () => undefined,
) {
  const parsed = parseArgs({ ...config, tokens: true });
  // Always there with `tokens: true`; the types cannot tell while T is open.
  for (const token of parsed.tokens as readonly FlagToken[]) {
    if (token.kind !== 'option' || token.value === undefined) continue;
    // The environment takes a blank variable as unset; a blank flag is a mistake, not a fallback.
    if (token.value.trim() === '') {
      const fallback = leftOut(token.name);
      throw new UsageError(
        `--${token.name} is empty: give it a value${fallback === undefined ? '' : `, or leave it out to use ${fallback}`}`,
      );
    }
  }
  return parsed;
}

type FlagToken = { kind: string; name: string; value?: string };
