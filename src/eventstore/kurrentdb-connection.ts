import { ConfigError } from '../config.ts';

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
export function invalidConnectionString(connectionString: string, error: unknown): ConfigError {
  const message = error instanceof Error ? error.message : String(error);
  const shown = withoutCredentials(connectionString);
  // A mistake in the configuration (status 2), as an option the client does not know is.
  return new ConfigError(
    `EVENT_STORE_URL is not a connection string the KurrentDB client accepts (${message.replaceAll(connectionString, shown)}); percent-encode any of : / @ in the user name or password`,
  );
}

/**
 * The options a connection string may set, as the client (1.3) knows them. It matches names
 * ignoring case, `-` and `_`, and warns of any other on the console, with the whole string,
 * credentials included, and then ignores it: a mistyped option would pass unseen, and print the
 * password.
 */
const CLIENT_OPTIONS = [
  'userCertFile',
  'userKeyFile',
  'maxDiscoverAttempts',
  'connectionName',
  'defaultDeadline',
  'discoveryInterval',
  'gossipTimeout',
  'nodePreference',
  'tls',
  'tlsVerifyCert',
  'tlsCAFile',
  'throwOnAppendFailure',
  'keepAliveInterval',
  'keepAliveTimeout',
];

const flat = (name: string) => name.trim().toLowerCase().replace(/[_-]/g, '');
const KNOWN = new Set(CLIENT_OPTIONS.map(flat));

/** The connection string's option names the client does not know, as written. */
export function unknownOptions(connectionString: string): string[] {
  const query = connectionString.indexOf('?');
  if (query === -1) return [];
  return connectionString
    .slice(query + 1)
    .split('&')
    .map((pair) => pair.split('=')[0]!)
    .filter((name) => name !== '' && !KNOWN.has(flat(name)));
}

/** Why a connection string with options the client does not know is refused, naming them and the ones it knows. */
export function unknownOptionsMessage(unknown: readonly string[]): string {
  return `EVENT_STORE_URL sets ${unknown.map((name) => JSON.stringify(name)).join(', ')}, which the KurrentDB client does not know and would ignore; it knows ${CLIENT_OPTIONS.join(', ')}`;
}
