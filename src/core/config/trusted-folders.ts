import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { SettingsError } from './settings.js';
import { errnoCode } from '../platform/fs-errors.js';

/** The user's answer about one folder; `settings` fingerprints the guarded values it was given for. */
export interface FolderAnswer {
  trust: 'trusted' | 'untrusted';
  settings: string;
  /** ISO time of the answer. */
  at: string;
}

/** `~/.outrider/trusted-folders.json`: the user's answers, by the folder's real path. */
export interface TrustStore {
  version: 1;
  folders: Record<string, FolderAnswer>;
}

/**
 * What the user said about a folder's guarded settings: `unasked` (never), `changed` (trusted,
 * but for other values than the file holds now), or the answer that still holds.
 */
export type FolderTrust = 'trusted' | 'untrusted' | 'unasked' | 'changed';

const storeSchema = z.object({
  version: z.literal(1),
  folders: z.record(z.string(), z.object({ trust: z.enum(['trusted', 'untrusted']), settings: z.string(), at: z.string() })),
});

const MAX_STORE_BYTES = 4 * 1024 * 1024;

/** Reads the store; a missing file holds no answers, a damaged one stops the start with the file named. */
export function readTrustStore(file: string): TrustStore {
  let text: string | undefined;
  try {
    text = readConfigFile(file, { maxBytes: MAX_STORE_BYTES, what: 'trusted folders file' });
  } catch (error) {
    if (error instanceof ConfigFileError) throw new SettingsError(error.message, file);
    throw error;
  }
  if (text === undefined) return { version: 1, folders: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const result = storeSchema.safeParse(parsed);
  if (!result.success) {
    throw new SettingsError(`${file}: not a trusted folders file outrider can read; fix it or delete it to be asked again`, file);
  }
  // Rebuilt key by key, so a "__proto__" folder is a folder, not a prototype.
  const folders: Record<string, FolderAnswer> = Object.create(null) as Record<string, FolderAnswer>;
  for (const [folder, answer] of Object.entries(result.data.folders)) folders[folder] = answer;
  return { version: 1, folders };
}

/** What the store says about `folder` for a file whose guarded values have `fingerprint`. */
export function folderTrust(store: TrustStore, folder: string, fingerprint: string): FolderTrust {
  const answer = Object.hasOwn(store.folders, folder) ? store.folders[folder] : undefined;
  if (!answer) return 'unasked';
  if (answer.trust === 'untrusted') return 'untrusted';
  return answer.settings === fingerprint ? 'trusted' : 'changed';
}

/**
 * Records an answer: read, change one entry, write to a temporary file and rename it over
 * the store, so a crash or a second outrider never leaves half a file. Private to the user.
 */
export function recordFolderAnswer(file: string, folder: string, answer: FolderAnswer): void {
  const store = readTrustStore(file);
  const folders = { ...store.folders, [folder]: answer };
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(temporary, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, file);
  } catch (error) {
    const reason = errnoCode(error) === 'EACCES' ? 'permission denied' : error instanceof Error ? error.message : String(error);
    throw new SettingsError(
      `${file}: cannot save your answer (${reason}); fix that, or start with --trust to skip the question`,
      file,
    );
  }
}
