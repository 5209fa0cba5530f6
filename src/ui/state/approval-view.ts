import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { type ApprovalRequest, oneLine, unifiedDiff } from '../../core/index.js';
import { type DiffLine, addedLines, diffLines, displayPath } from './tool-text.js';

/** What an approval prompt shows: who asks, for what (naming the file or command), and what would change. */
export interface ApprovalView {
  /** `the agent`, `sub-2`: the question reads `Allow sub-2 to run npm test?`. */
  who: string;
  /** `write notes.txt (new file)`, `edit src/a.ts`, `run npm test`. */
  what: string;
  /** The content or diff it would write, the whole command; empty when there is nothing more to see. */
  preview: DiffLine[];
}

/** Reads a file for the preview; undefined when it does not exist or cannot be read. */
export type ReadText = (absolute: string) => string | undefined;

const PREVIEW_MAX = 40;
/** Files past this size are not read for a preview. */
const READ_MAX_BYTES = 1_000_000;

/** The text of a file the approval would overwrite (small files only); undefined when there is none. */
export const readForPreview: ReadText = (absolute) => {
  try {
    if (statSync(absolute).size > READ_MAX_BYTES) return undefined;
    return readFileSync(absolute, 'utf8');
  } catch {
    return undefined;
  }
};

export function approvalView(request: ApprovalRequest, options: { root?: string; read?: ReadText } = {}): ApprovalView {
  const who = request.jobId ?? 'the agent';
  const args = (request.args ?? {}) as Record<string, unknown>;
  const str = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : undefined);
  const file = str('path');
  const shown = file === undefined ? request.label : displayPath(file, options.root);
  const absolute = file === undefined ? undefined : options.root ? path.resolve(options.root, file) : file;
  switch (request.toolName) {
    case 'write_file': {
      const content = str('content') ?? '';
      const before = absolute ? options.read?.(absolute) : undefined;
      if (before === undefined) return { who, what: `write ${shown} (new file)`, preview: addedLines(content, PREVIEW_MAX) };
      const diff = unifiedDiff(before, content, { maxLines: PREVIEW_MAX });
      return {
        who,
        what: `overwrite ${shown}`,
        preview: diff.text ? diffLines(diff.text) : [{ kind: 'note', text: 'no change to its content' }],
      };
    }
    case 'edit_file': {
      const diff = unifiedDiff(str('old_string') ?? '', str('new_string') ?? '', { maxLines: PREVIEW_MAX });
      const all = args.replace_all === true ? ' (every occurrence)' : '';
      return { who, what: `edit ${shown}${all}`, preview: diffLines(diff.text).filter((line) => line.kind !== '@') };
    }
    case 'bash': {
      const command = str('command') ?? request.label;
      const lines = command.split('\n');
      return {
        who,
        what: `run ${oneLine(lines[0] ?? '')}`,
        preview: lines.length > 1 ? lines.slice(0, PREVIEW_MAX).map((text): DiffLine => ({ kind: ' ', text: `  ${text}` })) : [],
      };
    }
    case 'agent_start':
      // Fan-out past agents.approve (core/agents/fan-out-approval.ts): `start 5 sub-agents this turn`; the estimate is the reason line.
      return { who, what: `start ${oneLine(request.label)}`, preview: [] };
    default:
      return { who, what: `run ${oneLine(`${request.toolName} ${shown}`)}`, preview: [] };
  }
}
