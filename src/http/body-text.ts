import { isUtf8 } from 'node:buffer';
import { AppError, BadRequestError } from '../shared/errors.ts';

/**
 * A request body's bytes as text, decoded by the charset its Content-Type declares: UTF-8 when it
 * declares none (JSON's own encoding, RFC 8259 §8.1), ISO-8859-1 and US-ASCII too. Bytes the
 * charset cannot hold are a 400, and a charset not listed is a 415: text is never guessed, and a
 * byte is never silently replaced by U+FFFD.
 */
export function decodeBodyText(bytes: Buffer, contentType: string | undefined): string {
  const charset = declaredCharset(contentType);
  const decode = charset === undefined ? decodeUtf8 : DECODERS.get(charset.toLowerCase());
  if (decode === undefined) {
    throw new AppError(
      'unsupported_media_type',
      415,
      `The charset ${JSON.stringify(charset)} is not supported: send UTF-8 (or ISO-8859-1, US-ASCII).`,
    );
  }
  return decode(bytes);
}

function decodeUtf8(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  throw new BadRequestError('invalid_json', 'The body is not valid UTF-8; declare its charset if it is not.');
}

function decodeAscii(bytes: Buffer): string {
  const offset = bytes.findIndex((byte) => byte > 0x7f);
  if (offset === -1) return bytes.toString('latin1');
  throw new BadRequestError(
    'invalid_json',
    `The body is declared US-ASCII but holds the byte ${hexByte(bytes, offset)} at offset ${offset}.`,
  );
}

/** Every byte is a character of ISO-8859-1, the first 256 code points (not windows-1252). */
const decodeLatin1 = (bytes: Buffer): string => bytes.toString('latin1');

/** The charsets decoded, by their IANA names and the aliases clients send. */
const DECODERS = new Map<string, (bytes: Buffer) => string>([
  ...['utf-8', 'utf8'].map((name) => [name, decodeUtf8] as const),
  ...['iso-8859-1', 'iso_8859-1', 'latin1', 'l1', 'iso-ir-100', 'cp819', 'ibm819', 'csisolatin1'].map(
    (name) => [name, decodeLatin1] as const,
  ),
  ...['us-ascii', 'ascii', 'iso646-us', 'ansi_x3.4-1968', 'iso-ir-6', 'csascii'].map(
    (name) => [name, decodeAscii] as const,
  ),
]);

/** The `charset` parameter of a Content-Type (RFC 9110 §8.3), unquoted; undefined when there is none. */
export function declaredCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  for (const parameter of contentType.split(';').slice(1)) {
    const separator = parameter.indexOf('=');
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(separator + 1).trim();
    return value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  }
  return undefined;
}

function hexByte(bytes: Buffer, offset: number): string {
  return `0x${bytes[offset]!.toString(16).toUpperCase().padStart(2, '0')}`;
}
