import { spawnSync } from 'node:child_process';

/**
 * Whether a suite that needs something from the machine (a Redis, a JVM, strace, Schemathesis)
 * can run here. When it cannot, the suite is skipped and one line says which suite and why,
 * unless CI=true: there `.ci/install-services.sh` has installed everything, so a missing piece is
 * an error, never a silent skip. Only runs that need Docker, which CI machines do not have, may be
 * skipped under CI too.
 */
export function canRun(
  suite: string,
  missing: string | undefined,
  options: { dockerOnly?: boolean; env?: Readonly<Record<string, string | undefined>> } = {},
): boolean {
  if (missing === undefined) return true;
  const why = missing.replace(/\s*\n\s*/g, ' ');
  if ((options.env ?? process.env).CI === 'true' && options.dockerOnly !== true)
    throw new Error(`${suite} cannot run, and CI=true does not allow skipping it: ${why}`);
  const notice = options.dockerOnly === true ? '' : '; with CI=true this is an error';
  console.warn(`${suite}: NOT RUN, ${why}${notice}`);
  return false;
}

/** Why `command` cannot be used, or undefined when `command …args` runs and succeeds. */
export function commandMissing(command: string, args: readonly string[], what = command): string | undefined {
  const run = spawnSync(command, args, { stdio: 'ignore' });
  if (run.status === 0) return undefined;
  return `${what} is not installed (bash .ci/install-services.sh installs it)`;
}
