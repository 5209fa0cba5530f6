import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';

/** The absolute path of an executable found on PATH, or undefined. */
export async function findExecutable(name: string, searchPath = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of searchPath.split(path.delimiter)) {
    if (dir === '') continue;
    const candidate = path.join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return undefined;
}
