/**
 * Data fields never shown outside the store: not on Kafka, not in the audit feed or histories.
 * `secretHash` (ApiKeyIssued, ApiKeySecretRotated) is an unsalted SHA-256 of an API key; the key
 * registry needs it, nobody reading events does.
 */
const SECRET_DATA_FIELDS: ReadonlySet<string> = new Set(['secretHash']);

/** The event's data as anyone outside the store may see it: secret material left out. */
export function publicEventData(data: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  if (!Object.keys(data).some((key) => SECRET_DATA_FIELDS.has(key))) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !SECRET_DATA_FIELDS.has(key)));
}
