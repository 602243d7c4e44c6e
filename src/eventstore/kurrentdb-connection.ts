/**
 * A KurrentDB connection string without its credentials, for messages and logs. The credentials
 * are what the client takes for them (its parseConnectionString): `user:password@` right after the
 * scheme, the password running to the first `@`, so it may hold a `/`.
 */
export function withoutCredentials(connectionString: string): string {
  return connectionString.replace(/^([^:]+:\/\/)[^:]+:[^@]+@/, '$1');
}

/**
 * The client's refusal of a connection string, without the credentials: its native part answers
 * a string it cannot parse (a password with a `/` not written %2F) with the whole string as message.
 */
export function invalidConnectionString(connectionString: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  const shown = withoutCredentials(connectionString);
  return new Error(
    `EVENT_STORE_URL is not a connection string the KurrentDB client accepts (${message.replaceAll(connectionString, shown)}); percent-encode any of : / @ in the user name or password`,
  );
}
