/** Why a file or stream operation failed, in words an operator acts on. */

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOTDIR: 'a part of the path is a file, not a directory',
  ENOENT: 'the file system does not allow a directory there',
  ENOSPC: 'no space left on the device',
  EEXIST: 'a file is in the way',
  EPIPE: 'the reader has gone',
  EIO: 'the device failed to write it',
};

/** The words for the error's code, or its message for another error. */
export function failureReason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  return REASONS[code] ?? (error instanceof Error ? error.message : String(error));
}
