import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** Runs `petstore keys …` as a real child process, as an operator would; resolves stdout and stderr. */
export async function petstoreKeys(
  dataDir: string,
  ...args: string[]
): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [path.join(ROOT, 'bin/petstore.js'), 'keys', ...args], {
    cwd: ROOT,
    env: { ...process.env, PETSTORE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' },
  });
}

export type CliRun = { readonly code: number; readonly stdout: string; readonly stderr: string };

/** Runs `petstore <args>` as an operator would, on `dataDir`; resolves its exit code and output, whatever the code. */
export async function petstore(
  dataDir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, 'bin/petstore.js'), ...args], {
      cwd: ROOT,
      env: { ...process.env, PETSTORE_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
