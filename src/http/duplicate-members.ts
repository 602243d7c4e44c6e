import { ValidationError } from '../shared/errors.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/**
 * The first member name that one object of this JSON text names twice, or undefined. RFC 8259 §4
 * leaves the meaning of such an object open: JSON.parse keeps the last value, while a proxy or a
 * firewall in front of the service may have read the first; I-JSON (RFC 7493 §2.3) forbids it.
 *
 * One pass over the text, building no values: a string is a member name when it opens an object
 * or follows a comma inside one; only names with escapes are decoded (`"\u0061"` is `"a"`). The
 * text must be JSON: what it returns for text that is not is meaningless.
 */
export function duplicateMember(text: string): string | undefined {
  // The names seen in each open object; undefined for an open array.
  const open: (Set<string> | undefined)[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      const start = i;
      i = closingQuote(text, i);
      if (!expectName) continue;
      expectName = false;
      const raw = text.slice(start + 1, i);
      const name = raw.includes('\\') ? (JSON.parse(`"${raw}"`) as string) : raw;
      const names = open[open.length - 1]!;
      if (names.has(name)) return name;
      names.add(name);
    } else if (char === OPEN_OBJECT) {
      open.push(new Set());
      expectName = true;
    } else if (char === OPEN_ARRAY) {
      open.push(undefined);
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      open.pop();
    } else if (char === COMMA) {
      expectName = open[open.length - 1] !== undefined;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string opened at `open`: the first not escaped. */
function closingQuote(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote !== -1) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** The 400 for a body that names a member twice; the name is cut at 64 characters. */
export function duplicateMemberError(name: string): ValidationError {
  const shown = name.length > 64 ? `${name.slice(0, 64)}…` : name;
  return new ValidationError(
    `The body names the member ${JSON.stringify(shown)} twice in one object, which leaves its value open ` +
      '(RFC 8259 §4): send each member once.',
    name,
  );
}
