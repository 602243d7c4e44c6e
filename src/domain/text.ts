import { ValidationError } from '../shared/errors.ts';

/**
 * The one rule for free text a client gives (a pet's name, an API key's name): well-formed
 * Unicode without NUL, other control characters, or the bidirectional overrides and isolates
 * that make text display in another order than it is stored ("Trojan Source", CVE-2021-42574);
 * normalised to NFC, so that one name has one spelling; at most `maxLength` code points once
 * normalised. Right-to-left text and its marks (U+200E, U+200F, U+061C) stay allowed.
 */
export function validateFreeText(value: unknown, field: string, maxLength: number): string {
  if (typeof value !== 'string') throw new ValidationError(`${field} must be text.`, field);
  if (!value.isWellFormed()) {
    throw new ValidationError(
      `${field} must be well-formed Unicode (an unpaired surrogate at character ${unpairedAt(value)}).`,
      field,
    );
  }
  refuseForbidden(value, field);
  const text = value.normalize('NFC');
  const length = codePoints(text);
  if (length <= maxLength) return text;
  // NFC lengthens some text (U+0958 becomes U+0915 U+093C): such text may be refused at a length
  // the client kept to, and the message says why.
  const sent = codePoints(value);
  throw new ValidationError(
    `${field} must be at most ${maxLength} characters` +
      (sent < length ? `; normalised to NFC, as it is stored, it has ${length} (${sent} as sent).` : '.'),
    field,
  );
}

/**
 * Whether text shows nothing: only white space and code points that render as nothing (zero-width
 * spaces and joiners, word joiners, the byte order mark, variation selectors: Unicode's
 * Default_Ignorable_Code_Point; other format characters such as the interlinear annotation marks),
 * blanks that are not white space (U+2800 BRAILLE PATTERN BLANK), the object replacement character
 * U+FFFC (a stand-in for nothing here), noncharacters, and combining marks with no base character.
 * `trim()` would let U+200B alone pass as a name.
 */
export function isBlank(text: string): boolean {
  return BLANK.test(text);
}

const BLANK =
  /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\p{Noncharacter_Code_Point}\u2800\ufffc]*$/u;

const BIDI_FORMATTING: Readonly<Record<number, string>> = {
  0x202a: 'LEFT-TO-RIGHT EMBEDDING',
  0x202b: 'RIGHT-TO-LEFT EMBEDDING',
  0x202c: 'POP DIRECTIONAL FORMATTING',
  0x202d: 'LEFT-TO-RIGHT OVERRIDE',
  0x202e: 'RIGHT-TO-LEFT OVERRIDE',
  0x2066: 'LEFT-TO-RIGHT ISOLATE',
  0x2067: 'RIGHT-TO-LEFT ISOLATE',
  0x2068: 'FIRST STRONG ISOLATE',
  0x2069: 'POP DIRECTIONAL ISOLATE',
};

/** Anything the rule refuses, in one pass; most text has none, and then costs one test. */
const FORBIDDEN = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

function refuseForbidden(value: string, field: string): void {
  if (!FORBIDDEN.test(value)) return;
  let position = 0;
  for (const character of value) {
    position++;
    if (!FORBIDDEN.test(character)) continue;
    const code = character.codePointAt(0)!;
    const bidi = BIDI_FORMATTING[code];
    const kind =
      code === 0 ? 'NUL' : bidi === undefined ? 'control characters' : 'bidirectional overrides or isolates';
    const named = bidi === undefined ? hex(code) : `${hex(code)} ${bidi}`;
    throw new ValidationError(
      `${field} must not contain ${kind} (${named} at character ${position}).`,
      field,
    );
  }
}

function hex(code: number): string {
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** The 1-based code-point position of the first unpaired surrogate. */
function unpairedAt(value: string): number {
  let position = 0;
  for (const character of value) {
    position++;
    if (!character.isWellFormed()) return position;
  }
  return position;
}
