import { isUtf8 } from 'node:buffer';
import { AppError, BadRequestError } from '../shared/errors.ts';

/**
 * A request body's bytes as text, decoded by the charset its Content-Type declares: UTF-8 when it
 * declares none (JSON's own encoding, RFC 8259 §8.1), ISO-8859-1 and US-ASCII too. Bytes the
 * charset cannot hold are a 400, and a charset not listed, two charsets, or a body sent with a
 * Content-Encoding (gzip…) are a 415: text is never guessed, and a byte is never silently replaced
 * by U+FFFD.
 */
export function decodeBodyText(
  bytes: Buffer,
  headers: { readonly 'content-type'?: string | undefined; readonly 'content-encoding'?: string | undefined },
): string {
  const encoding = headers['content-encoding']?.trim().toLowerCase();
  if (encoding !== undefined && encoding !== '' && encoding !== 'identity') {
    throw new AppError(
      'unsupported_media_type',
      415,
      `A body with Content-Encoding ${JSON.stringify(headers['content-encoding'])} is not supported: send it unencoded.`,
    );
  }
  const charset = declaredCharset(headers['content-type']);
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

/**
 * The `charset` parameter of a Content-Type (RFC 9110 §8.3), unquoted; undefined when there is none,
 * and a 415 when there are two that differ.
 */
export function declaredCharset(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const declared: string[] = [];
  for (const parameter of contentType.split(';').slice(1)) {
    const separator = parameter.indexOf('=');
    if (parameter.slice(0, separator).trim().toLowerCase() !== 'charset') continue;
    const value = parameter.slice(separator + 1).trim();
    declared.push(
      value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value,
    );
  }
  if (new Set(declared.map((charset) => charset.toLowerCase())).size > 1) {
    throw new AppError(
      'unsupported_media_type',
      415,
      `The Content-Type declares more than one charset (${declared.join(', ')}): declare one.`,
    );
  }
  return declared[0];
}

function hexByte(bytes: Buffer, offset: number): string {
  return `0x${bytes[offset]!.toString(16).toUpperCase().padStart(2, '0')}`;
}
