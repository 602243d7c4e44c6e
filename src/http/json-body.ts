import type { FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { type AppError, BadRequestError, ValidationError } from '../shared/errors.ts';
import { decodeBodyText } from './body-text.ts';
import { duplicateMember, duplicateMemberError } from './duplicate-members.ts';

/**
 * The JSON body parser (a Fastify content-type parser, `parseAs: 'buffer'`): the bytes decoded by
 * their declared charset (see body-text.ts), then parsed with secure-json-parse, which refuses
 * members that could change the prototype of objects built from the body, and an object that names
 * a member twice (see duplicate-members.ts). Each refusal says what it found: a member named
 * `__proto__` is valid JSON, refused for what it could do.
 * A body of no bytes is no body (RFC 9110 §8.6), whichever JSON type it is sent as: generated clients
 * send `Content-Type: application/json` on a POST whose optional body they leave out (cancelling
 * an order without a reason), and each route judges a missing body as it does one never declared.
 */
export function parseJsonBody(
  request: FastifyRequest,
  body: Buffer,
  done: (error: Error | null, value?: unknown) => void,
): void {
  let value: unknown;
  try {
    const text = decodeBodyText(body, request.headers);
    value = text.length === 0 ? undefined : parseJson(text);
  } catch (error) {
    done(error as Error);
    return;
  }
  done(null, value);
}

const NOT_JSON = 'The body is not valid JSON.';
const PROTO = 'The body holds a member named "__proto__", which is refused wherever it appears.';
const CONSTRUCTOR =
  'The body holds a "constructor" member with a "prototype" member, which is refused wherever it appears.';

export function parseJson(text: string): unknown {
  if (text.length === 0)
    throw new BadRequestError('invalid_json', 'The body is empty, though its type is JSON.');
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw refusal(text);
  }
  const twice = duplicateMember(text);
  if (twice !== undefined) throw duplicateMemberError(twice);
  return value;
}

/**
 * For the GraphQL endpoint, which leaves parsing to Yoga (it answers malformed JSON in GraphQL's
 * own shape): the 400 parseJson gives a body that is JSON but names `__proto__`, a `constructor`
 * holding `prototype`, or a member twice; undefined for any other text, JSON or not.
 */
export function memberRefusal(text: string): ValidationError | undefined {
  if (!MAY_NAME_A_PROTOTYPE.test(text) && !namesAMemberTwice(text)) return undefined;
  try {
    parseJson(text);
    return undefined;
  } catch (error) {
    return error instanceof ValidationError ? error : undefined;
  }
}

/** What secure-json-parse looks for, escapes included: text without it is parsed only by Yoga. */
const MAY_NAME_A_PROTOTYPE = /__proto__|constructor|\\u/;

function namesAMemberTwice(text: string): boolean {
  try {
    return duplicateMember(text) !== undefined;
  } catch {
    return true;
  }
}

/** Why secure-json-parse refused the text (its message is the same for both members). */
function refusal(text: string): AppError {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new BadRequestError('invalid_json', NOT_JSON);
  }
  return holdsProtoMember(value)
    ? new ValidationError(PROTO, '__proto__')
    : new ValidationError(CONSTRUCTOR, 'constructor');
}

/** Whether `__proto__` is an own member name anywhere in the value (JSON.parse makes it an own one). */
function holdsProtoMember(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(holdsProtoMember);
}
