import os from 'node:os';
import path from 'node:path';
import type { EarlierTurnEnd, Job, Message } from '../../core/index.js';
import { historyEntries } from './history-entries.js';
import type { EntryBody } from './transcript.js';

/** `~/code/app` for a path under the user's home. */
export function homeRelative(dir: string): string {
  const home = os.homedir();
  return dir === home || dir.startsWith(`${home}${path.sep}`) ? `~${dir.slice(home.length)}` : dir;
}

/**
 * The transcript's first entries: the header, then the conversation as it stands (a resumed
 * session's at the start, the one /rewind went back to after it).
 */
export function conversationEntries(
  session: { model: string; root: string; permissionMode(): string },
  messages: readonly Message[],
  options: { jobs: readonly Job[]; ends: readonly EarlierTurnEnd[] },
): EntryBody[] {
  return [
    { kind: 'header', model: session.model, cwd: homeRelative(session.root), mode: session.permissionMode() },
    ...historyEntries(messages, { root: session.root, jobs: options.jobs, ends: options.ends }),
  ];
}
