/** A mistake in the command line: printed with the command's usage, exit status 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A failure the operator can fix (a port in use, a data directory that cannot be written, a store
 * that is not there): printed as one line, without a stack trace, exit status 1.
 */
export class CommandFailure extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'CommandFailure';
  }
}
