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
