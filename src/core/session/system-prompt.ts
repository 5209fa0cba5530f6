import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Facts about the machine, frozen when the session starts so the prompt never changes. */
export interface EnvironmentFacts {
  cwd: string;
  platform: string;
  date: string;
  isGitRepo: boolean;
}

/** Instructions files the prompt includes, in order: the user's, then the project's. */
export interface InstructionFile {
  path: string;
  content: string;
}

const MAX_INSTRUCTIONS_BYTES = 16 * 1024;

export function environmentFacts(cwd: string, now: Date = new Date()): EnvironmentFacts {
  return {
    cwd,
    platform: `${process.platform} ${process.arch}`,
    date: localDate(now),
    isGitRepo: insideGitRepo(cwd),
  };
}

/** The user's calendar date (not UTC's), as YYYY-MM-DD. */
function localDate(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** True when `cwd` or a folder above it holds `.git` (running from a subfolder counts). */
function insideGitRepo(cwd: string): boolean {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, '.git'))) return true;
    if (path.dirname(dir) === dir) return false;
  }
}

/** Reads the AGENTS.md files that exist (user's first, project's last so it wins on conflict). */
export function readInstructionFiles(paths: string[]): InstructionFile[] {
  const files: InstructionFile[] = [];
  for (const file of paths) {
    try {
      if (!statSync(file).isFile()) continue;
      let content = readFileSync(file, 'utf8').trim();
      if (content.length > MAX_INSTRUCTIONS_BYTES) {
        content = `${content.slice(0, MAX_INSTRUCTIONS_BYTES)}\n[… cut: ${file} is over 16 KB]`;
      }
      if (content) files.push({ path: file, content });
    } catch {
      // A missing or unreadable file simply contributes nothing.
    }
  }
  return files;
}

/** The parent agent's system prompt: built once per session, byte-identical across turns. */
export function buildSystemPrompt(facts: EnvironmentFacts, instructions: InstructionFile[]): string {
  const parts = [
    `You are outrider, a coding agent working in the user's terminal. You read, search, edit and run code in the working directory to do what the user asks.

# How to work
- Be direct and concise; the user reads your replies in a terminal. No preamble, no flattery.
- Explore before you change: read the relevant code, follow conventions already in the project.
- Prefer edit_file for changes to existing files; read a file before editing it.
- Run the project's own checks (tests, typecheck) after changes when you can.
- Independent read-only tool calls can go in one response; they run in parallel.
- For a focused investigation that would fill your context (where is X handled, how do A, B and C compare), start sub-agents with agent_start and keep working; they report back.
- Never invent file contents or command output. If something fails, say so plainly.
- When done, state briefly what you did and what is left.`,
    `# Environment
Working directory: ${facts.cwd}
Platform: ${facts.platform}
Date: ${facts.date}
Git repository: ${facts.isGitRepo ? 'yes' : 'no'}`,
  ];
  for (const file of instructions) {
    parts.push(`# Instructions from ${file.path}\n${file.content}`);
  }
  return parts.join('\n\n');
}

/**
 * What a typed sub-agent is told of where it works: the same environment facts and project
 * instructions as the parent (a fork has them already, in the parent's prompt it replays).
 */
export function childContextPrompt(facts: EnvironmentFacts, instructions: InstructionFile[]): string {
  const parts = [
    `# Environment\nWorking directory: ${facts.cwd}\nPlatform: ${facts.platform}\nDate: ${facts.date}\nGit repository: ${facts.isGitRepo ? 'yes' : 'no'}`,
    ...instructions.map((file) => `# Instructions from ${file.path}\n${file.content}`),
  ];
  return parts.join('\n\n');
}
