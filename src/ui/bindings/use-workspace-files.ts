import path from 'node:path';
import { useCallback, useEffect, useRef, useState } from 'react';
import { walkFiles } from '../../core/index.js';

/** Files listed for `@` completion at most. */
const MAX_FILES = 5000;

/**
 * The workspace's files (relative paths, the tools' own ignore rules), listed once the first
 * time they are `wanted` and kept for the session; undefined until then. `latest` reads them
 * from a key handler (which may run before React re-renders with them).
 */
export function useWorkspaceFiles(
  root: string | undefined,
  wanted: boolean,
): { files?: readonly string[]; latest: () => readonly string[] | undefined } {
  const [files, setFiles] = useState<readonly string[] | undefined>(undefined);
  const listed = useRef<readonly string[] | undefined>(undefined);
  const controller = useRef<AbortController | undefined>(undefined);
  useEffect(() => {
    if (!wanted || !root || controller.current) return;
    const listing = new AbortController();
    controller.current = listing;
    void (async () => {
      const found: string[] = [];
      try {
        for await (const entry of walkFiles({ root, start: root, signal: listing.signal })) {
          found.push(path.relative(root, entry.absolute).split(path.sep).join('/'));
          if (found.length >= MAX_FILES) break;
        }
      } catch {
        // An unreadable folder or the app quitting: complete from what was found.
      }
      if (listing.signal.aborted) return;
      listed.current = found;
      setFiles(found);
    })();
  }, [wanted, root]);
  useEffect(() => () => controller.current?.abort(), []);
  const latest = useCallback(() => listed.current, []);
  return { files, latest };
}
