/** The errno code of a failed fs call (`ENOENT`, `EISDIR` …), or undefined for any other error. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True for the errors that mean "nothing is there": no such file, or a parent is not a directory. */
export function isMissing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
