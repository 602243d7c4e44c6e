import { existsSync } from 'node:fs';
import path from 'node:path';
import { runToCompletion } from './child-process.ts';

/**
 * The benchmark runs with authentication and rate limiting on, using an `enterprise` key whose
 * limits no run can reach, with the scopes of every scenario. Before the keys command exists there
 * is no guard to pass, and the header is sent anyway (the open guard ignores it), so the requests
 * have the same size either way.
 */

const PER_MINUTE = '1000000000';
const PER_DAY = '1000000000000';
/** The default scopes, and audit:read for the history scenario and the scale table's catch-up probe. */
const SCOPES = 'pets:read,pets:write,orders:read,orders:write,audit:read';

export type ApiKey = { readonly header: string; readonly authenticated: boolean };

/** `scopes` (comma-separated) replaces those above. */
export async function createApiKey(
  root: string,
  env: Record<string, string>,
  scopes = SCOPES,
): Promise<ApiKey> {
  if (!existsSync(path.join(root, 'src/cli/keys.ts'))) {
    return { header: 'Bearer bench-no-guard-yet', authenticated: false };
  }
  const args = ['keys', 'create', '--plan', 'enterprise', '--per-minute', PER_MINUTE, '--per-day', PER_DAY];
  args.push('--scopes', scopes);
  const stdout = await runToCompletion(
    [process.execPath, [path.join(root, 'bin/petstore.js'), ...args]],
    root,
    env,
  );
  const key = stdout.trim().split('\n').at(-1)?.trim();
  if (key === undefined || key === '') throw new Error(`petstore keys create printed no key:\n${stdout}`);
  return { header: `Bearer ${key}`, authenticated: true };
}
