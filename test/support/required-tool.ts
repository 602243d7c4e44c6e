import { execFileSync } from 'node:child_process';

/**
 * Whether a command-line tool a suite needs is installed. Under CI=true a missing tool is an error
 * (.ci/install-services.sh installs it), never a silent skip; elsewhere the suite is skipped with a
 * line saying why.
 */
export function requiredTool(command: string, versionArgs: string[], installHint: string): boolean {
  try {
    execFileSync(command, versionArgs, { stdio: 'ignore' });
    return true;
  } catch {
    if (process.env.CI === 'true')
      throw new Error(`${command} is missing: .ci/install-services.sh installs it`);
    console.warn(`skipped: ${command} is not installed (${installHint})`);
    return false;
  }
}
