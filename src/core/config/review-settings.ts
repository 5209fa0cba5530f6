import { realpathSync } from 'node:fs';
import path from 'node:path';
import { outriderPaths, projectPaths } from './paths.js';
import { type GuardedSetting, type ResolvedSettings, guardedFingerprint, resolveSettings } from './project-trust.js';
import { SETTINGS_DEFAULTS, type Settings, type SettingsFiles, readSettingsFiles } from './settings.js';
import { type FolderTrust, folderTrust, readTrustStore, recordFolderAnswer } from './trusted-folders.js';

/**
 * The settings files as read once at start, and what the user said before about this folder.
 * A front end asks "Trust this folder?" from it, and the session is opened with these very
 * layers, so what the user saw is what applies.
 */
export interface SettingsReview {
  /** The folder as trust records name it: the working directory's real path. */
  folder: string;
  projectFile: string;
  trustFile: string;
  files: SettingsFiles;
  flags: Settings;
  /** The project's keys that need trust with these flags (empty: nothing to ask). */
  guarded: GuardedSetting[];
  fingerprint: string;
  stored: FolderTrust;
}

/** Reads the settings files and, when the project holds guarded keys, the user's answer for this folder. */
export function reviewSettings(input: { cwd: string; env: NodeJS.ProcessEnv; flags: Settings }): SettingsReview {
  const home = outriderPaths(input.env);
  const projectFile = projectPaths(input.cwd).settings;
  const files = readSettingsFiles({ userPath: home.userSettings, projectPath: projectFile });
  const { guarded } = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...files, flags: input.flags }, { trusted: false });
  const folder = realFolder(input.cwd);
  const fingerprint = guardedFingerprint(files.project);
  // The store is read only when it matters, so a damaged one never blocks a plain start.
  const stored = guarded.length > 0 ? folderTrust(readTrustStore(home.trustedFolders), folder, fingerprint) : 'unasked';
  return { folder, projectFile, trustFile: home.trustedFolders, files, flags: input.flags, guarded, fingerprint, stored };
}

/** True when the project holds guarded keys the user has not answered about (or that changed since). */
export function needsTrustAnswer(review: SettingsReview): boolean {
  return review.guarded.length > 0 && (review.stored === 'unasked' || review.stored === 'changed');
}

/** Stores the user's answer for this folder and these values; returns the review as it now stands. */
export function recordTrustAnswer(review: SettingsReview, answer: 'trusted' | 'untrusted', now = new Date()): SettingsReview {
  recordFolderAnswer(review.trustFile, review.folder, { trust: answer, settings: review.fingerprint, at: now.toISOString() });
  return { ...review, stored: answer };
}

/**
 * The effective settings: the project's guarded keys apply when `trusted` (a `--trust` flag)
 * or when the user trusted this folder for these values. `warning` is one line naming what
 * was left out, and how to use it.
 */
export function settingsFromReview(
  review: SettingsReview,
  options: { trusted?: boolean } = {},
): ResolvedSettings & { warning?: string } {
  const trusted = options.trusted === true || review.stored === 'trusted';
  const resolved = resolveSettings({ defaults: SETTINGS_DEFAULTS, ...review.files, flags: review.flags }, { trusted });
  if (resolved.ignored.length === 0) return resolved;
  return { ...resolved, warning: `ignored ${resolved.ignored.join(', ')} from ${review.projectFile}: ${whyIgnored(review)}` };
}

function whyIgnored(review: SettingsReview): string {
  switch (review.stored) {
    case 'untrusted':
      return `you chose not to trust this folder; pass --trust to use them for one run, or remove the folder from ${review.trustFile} to be asked again`;
    case 'changed':
      return 'they changed since you trusted this folder; start outrider here (without -p) to review them, or pass --trust';
    default:
      return 'this folder is not trusted; pass --trust to use them, or start outrider here (without -p) to be asked';
  }
}

function realFolder(cwd: string): string {
  try {
    return realpathSync(cwd);
  } catch {
    return path.resolve(cwd);
  }
}
