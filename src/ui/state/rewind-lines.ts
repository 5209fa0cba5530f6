import { oneLine, type RewindMode, type RewindOutcome, safeText } from '../../core/index.js';
import { plural } from '../format.js';

/** What restoring code never touches, said wherever it is offered (as Claude Code says of its bash edits). */
export const UNTRACKED_NOTE =
  "Edits made by bash commands, by MCP tools and by merging isolated sub-agents' worktrees are not tracked: restoring code leaves them as they are.";

/** What /rewind did, in lines for the transcript. File names are the model's to choose: shown escaped. */
export function rewindLines(outcome: RewindOutcome, mode: RewindMode): string[] {
  const lines: string[] = [];
  if (mode !== 'code') {
    lines.push(
      `The conversation is back to before "${oneLine(outcome.prompt, 60)}" (${plural(outcome.removedMessages, 'message')} taken back); that prompt is in the input, to edit or send again.`,
    );
  }
  const files = outcome.files;
  if (!files) return lines;
  const names = (paths: readonly string[]) => paths.map(safeText).join(', ');
  if (files.restored.length) lines.push(`Put back as they were: ${names(files.restored)}`);
  if (files.deleted.length) lines.push(`Removed (the agent created them): ${names(files.deleted)}`);
  if (files.conflicts.length) {
    lines.push(`Changed by someone else since the agent's last edit, put back all the same: ${names(files.conflicts)}`);
  }
  for (const skipped of files.skipped) lines.push(safeText(`Left as it is: ${skipped.path}: ${skipped.why}`));
  if (!files.restored.length && !files.deleted.length && !files.skipped.length) {
    lines.push('No file the agent changed since then needed putting back.');
  }
  lines.push(UNTRACKED_NOTE);
  return lines;
}
