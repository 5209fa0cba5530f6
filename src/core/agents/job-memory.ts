import { mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isMissing } from '../platform/fs-errors.js';
import { followLinks, isWithin, resolveWorkspacePath } from '../platform/paths.js';
import { readTextFile } from '../platform/read-text-file.js';
import type { AnyTool, ToolOutput, Workspace } from '../tools/define.js';
import type { AgentDefinition, AgentMemoryScope } from './agent-definition.js';

// Claude Code's `memory:` for a sub-agent: a folder kept from one job to the next, whose
// MEMORY.md (its first 200 lines) opens every job's system prompt. A file read from
// `.claude/agents` (or `--agents`) keeps Claude Code's folders, so both tools share one memory;
// outrider's own files keep theirs under `.outrider`:
//   user     ~/.claude/agent-memory/<agent>/          ~/.outrider/agent-memory/<agent>/
//   project  .claude/agent-memory/<agent>/            .outrider/agent-memory/<agent>/
//   local    .claude/agent-memory-local/<agent>/      .outrider/agent-memory-local/<agent>/
// A project folder lies in the job's workspace (an isolated job's worktree). The user's lies
// outside it: the job's file tools, and they alone, reach that one folder too.

/** Lines of MEMORY.md a job starts with, as in Claude Code. */
export const MEMORY_PROMPT_LINES = 200;
/** Bytes of MEMORY.md read for them, whatever its lines. */
export const MAX_MEMORY_BYTES = 32 * 1024;
/** The file tools a job with memory is given for its folder alone when its definition gives it none. */
export const MEMORY_FILE_TOOLS: readonly string[] = ['read_file', 'write_file', 'edit_file'];

const AGENT_FOLDER_NAME = /^[a-z0-9_][a-z0-9._-]{0,127}$/;

/** Where the user's state is: outrider's home (OUTRIDER_HOME) and the user's home (HOME). */
export interface MemoryPlaces {
  outriderHome: string;
  home: string | undefined;
}

/** A job's memory folder (its real path), and whether it lies outside the job's workspace. */
export interface MemoryFolder {
  dir: string;
  scope: AgentMemoryScope;
  outside: boolean;
}

/**
 * The memory folder of a job of `definition`, made if missing; or why it has none. A project's
 * folder must really lie in the workspace: a repository's link out of it is refused.
 */
export function memoryFolder(
  definition: Pick<AgentDefinition, 'name' | 'memory' | 'source'>,
  workspace: Workspace,
  places: MemoryPlaces,
): MemoryFolder | { error: string } {
  const scope = definition.memory;
  if (!scope) return { error: 'no memory' };
  // Names are checked when a file is read; checked again here, as they become a folder.
  if (!AGENT_FOLDER_NAME.test(definition.name)) {
    return { error: `the agent name ${JSON.stringify(definition.name)} cannot name a folder` };
  }
  const claude = definition.source === 'claude';
  const project = path.join(workspace.root, claude ? '.claude' : '.outrider');
  const base =
    scope === 'user'
      ? claude
        ? path.join(places.home || os.homedir(), '.claude', 'agent-memory')
        : path.join(places.outriderHome, 'agent-memory')
      : path.join(project, scope === 'project' ? 'agent-memory' : 'agent-memory-local');
  const dir = path.join(base, definition.name);
  const real = followLinks(dir);
  if (real === undefined) return { error: `${dir} has no real path: its symbolic links form a loop` };
  const inside = [workspace.root, ...workspace.extraDirs].some((root) => isWithin(root, real));
  if (scope !== 'user' && !inside) return { error: `${dir} leads outside the project (to ${real})` };
  try {
    mkdirSync(real, { recursive: true, mode: 0o700 });
  } catch (error) {
    return { error: `${dir} cannot be made (${(error as Error).message})` };
  }
  return { dir: real, scope, outside: !inside };
}

/** What the job reads of MEMORY.md: its first lines, or why there are none. */
export function readMemory(dir: string): { text?: string; cut?: boolean; note?: string } {
  const file = path.join(dir, 'MEMORY.md');
  const real = followLinks(file);
  // A link out of the folder would put any file of the machine into the prompt.
  if (real === undefined || !isWithin(dir, real)) return { note: 'MEMORY.md links out of the memory folder; it was not read' };
  let text: string;
  let cut: boolean;
  try {
    ({ text, cut } = readTextFile(real, MAX_MEMORY_BYTES));
  } catch (error) {
    if (isMissing(error)) return {};
    return { note: `MEMORY.md cannot be read (${(error as Error).message})` };
  }
  const lines = text.split(/\r?\n/);
  if (lines.length > MEMORY_PROMPT_LINES) return { text: lines.slice(0, MEMORY_PROMPT_LINES).join('\n'), cut: true };
  return { text, cut };
}

const SCOPE_WORDS: Readonly<Record<AgentMemoryScope, string>> = {
  user: 'yours across every project',
  project: "this project's, shared with everyone who has the repository",
  local: "this project's, on this machine only",
};

/** The system prompt's part on memory: where it is, what it holds, how to keep it. */
export function memoryPrompt(agent: string, folder: MemoryFolder): string {
  const memory = readMemory(folder.dir);
  const shown =
    memory.text !== undefined && memory.text.trim() !== ''
      ? `Its MEMORY.md${memory.cut ? ` (only its first ${MEMORY_PROMPT_LINES} lines; shorten it)` : ''}:\n\n${memory.text.trim()}`
      : memory.note
        ? `Its ${memory.note}.`
        : 'It has no MEMORY.md yet.';
  return [
    '# Memory',
    '',
    `You have a memory folder, ${folder.dir} (${SCOPE_WORDS[folder.scope]}): what you write there stays for the next jobs of ${agent}. ` +
      `Every job starts with the first ${MEMORY_PROMPT_LINES} lines of its MEMORY.md, given below: keep that file short, an index of ` +
      'what you learned (paths, conventions, decisions, what did not work), with details in other files of the folder. ' +
      'Before you give your final answer, record there what would help your next job; never record secrets.',
    '',
    shown,
  ].join('\n');
}

/**
 * A file tool that reaches only `dir`: paths are read from there (a relative one too), the
 * permission gate is shown where the call really goes, and anything outside is refused.
 */
export function confinedTool(tool: AnyTool, dir: string): AnyTool {
  const workspace: Workspace = { root: dir, extraDirs: [] };
  const at = (p: string) => (p.startsWith('~/') ? p : path.resolve(dir, p));
  return {
    ...tool,
    description: `${tool.description} For you it reaches only your memory folder, ${dir}.`,
    paths: (args: unknown) => (tool.paths?.(args) ?? []).map(at),
    execute: async (args: unknown, ctx): Promise<ToolOutput | string> => {
      for (const requested of tool.paths?.(args) ?? []) {
        if (!resolveWorkspacePath(workspace, requested).inside) {
          return {
            content: `${requested} is outside your memory folder ${dir}: ${tool.name} reaches only that folder.`,
            isError: true,
          };
        }
      }
      return tool.execute(args, { ...ctx, workspace });
    },
  };
}

/** A file tool whose workspace holds `dir` too (a job's own memory folder outside the project). */
export function reachingTool(tool: AnyTool, dir: string): AnyTool {
  return {
    ...tool,
    execute: (args: unknown, ctx) =>
      tool.execute(args, { ...ctx, workspace: { ...ctx.workspace, extraDirs: [...ctx.workspace.extraDirs, dir] } }),
  };
}

/** The workspace a job's permission gate judges paths in: the memory folder added when it lies outside. */
export function withMemoryFolder(workspace: Workspace, folder: MemoryFolder | undefined): Workspace {
  return folder?.outside ? { ...workspace, extraDirs: [...workspace.extraDirs, folder.dir] } : workspace;
}
