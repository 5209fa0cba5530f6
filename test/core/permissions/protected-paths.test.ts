import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../../src/core/permissions/policy.js';
import { protectedReason } from '../../../src/core/permissions/protected-paths.js';
import type { PermissionMode } from '../../../src/core/permissions/types.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';

// Files that make things run: git's config and hooks, outrider's and Claude's project
// settings, hooks and agents. Writing them always asks, even in accept-edits.
//   <tmp>/ws                 the workspace, with .git/, and links:
//   ws/innocent -> ws/.git/config        ws/hooks -> ws/.git/hooks
//   ws/.gitdir-store (the real git dir)  ws/sub/.git -> ../.gitdir-store (a linked .git)
//   <tmp>/added              a directory added with --add-dir
let tmp: string;
let workspace: Workspace;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-protected-'));
  const ws = path.join(tmp, 'ws');
  mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  mkdirSync(path.join(ws, '.gitdir-store'), { recursive: true });
  mkdirSync(path.join(ws, 'sub'), { recursive: true });
  mkdirSync(path.join(tmp, 'added'));
  symlinkSync(path.join(ws, '.git', 'config'), path.join(ws, 'innocent'));
  symlinkSync(path.join(ws, '.git', 'hooks'), path.join(ws, 'hooks'));
  symlinkSync(path.join(ws, '.gitdir-store'), path.join(ws, 'sub', '.git'));
  workspace = makeWorkspace(ws, [path.join(tmp, 'added')]);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const PROTECTED: string[] = [
  '.git/config',
  '.git/hooks/pre-commit',
  '.git/hooks/post-index-change',
  '.git/config.worktree',
  '.git/info/attributes',
  '.git/modules/sm/config',
  '.git',
  'sub/.git/config',
  'nested/repo/.git/hooks/pre-push',
  '.outrider/settings.json',
  '.outrider/agents/reviewer.md',
  '.outrider',
  '.claude/settings.json',
  '.claude/settings.local.json',
  '.claude/agents/x.md',
  '.mcp.json',
  '.MCP.json',
  '../added/.mcp.json',
  // Spelled so that a case-insensitive or normalizing file system finds the same file.
  '.GIT/config',
  '.Git/HOOKS/pre-commit',
  '.git./config',
  '.git /config',
  '.g\u200cit/config',
  '.CLAUDE/settings.json',
  '.Outrider/settings.json',
  // Through links and `..`.
  'innocent',
  'hooks/pre-commit',
  'src/../.git/config',
  './.claude/x',
  // In a directory added with --add-dir, by absolute path.
  '../added/.claude/settings.json',
  '../added/.outrider/settings.json',
  '../added/.git/config',
];

const NOT_PROTECTED: string[] = [
  'src/a.ts',
  '.gitignore',
  '.gitattributes',
  '.github/workflows/ci.yml',
  '.git-blame-ignore-revs',
  'src/.claude-notes.md',
  'docs/.outrider.md',
  'sub/.claude/settings.json',
  'packages/x/.outrider/settings.json',
  'git/config',
  '.gitdir-store/config',
  // Claude and outrider read .mcp.json at the top of the project only.
  'sub/.mcp.json',
  '.mcp.json.bak',
];

describe('protectedReason', () => {
  it.each(PROTECTED)('%j is protected', (requested) => {
    const reason = protectedReason(resolveWorkspacePath(workspace, requested));
    expect(reason).toBeDefined();
    expect(reason).not.toMatch(/\n/);
  });

  it.each(NOT_PROTECTED)('%j is not protected', (requested) => {
    expect(protectedReason(resolveWorkspacePath(workspace, requested))).toBeUndefined();
  });

  it('a .git that is a link is judged by its name too: sub/.git/config really is .gitdir-store/config', () => {
    const p = resolveWorkspacePath(workspace, 'sub/.git/config');
    expect(p.real).toBe(path.join(workspace.root, '.gitdir-store', 'config'));
    expect(protectedReason(p)).toBeDefined();
  });

  it('says what the file is and that writing it always asks', () => {
    expect(protectedReason(resolveWorkspacePath(workspace, '.git/hooks/pre-commit'))).toBe(
      ".git/hooks/pre-commit is inside .git: git's config and hooks there make git run programs, so writing it always asks",
    );
    expect(protectedReason(resolveWorkspacePath(workspace, '.claude/settings.json'))).toBe(
      '.claude/settings.json is project configuration (settings, hooks, agents) that can make programs run, so writing it always asks',
    );
  });
});

// Verdicts in: default, accept-edits, plan, yolo.
const MODES: PermissionMode[] = ['default', 'accept-edits', 'plan', 'yolo'];
const TABLE: [string, string, string[]][] = [
  ['write_file', '.git/config', ['ask', 'ask', 'deny', 'allow']],
  ['edit_file', '.git/hooks/pre-commit', ['ask', 'ask', 'deny', 'allow']],
  ['write_file', '.outrider/settings.json', ['ask', 'ask', 'deny', 'allow']],
  ['edit_file', '.claude/settings.json', ['ask', 'ask', 'deny', 'allow']],
  ['write_file', '.mcp.json', ['ask', 'ask', 'deny', 'allow']],
  ['write_file', 'innocent', ['ask', 'ask', 'deny', 'allow']],
  ['write_file', '../added/.claude/settings.json', ['ask', 'ask', 'deny', 'allow']],
  ['write_file', 'src/a.ts', ['ask', 'allow', 'deny', 'allow']],
  // Reading them is fine.
  ['read_file', '.git/config', ['allow', 'allow', 'allow', 'allow']],
];
const ROWS = TABLE.flatMap(([tool, requested, verdicts]) =>
  MODES.map((mode, i) => ({ mode, tool, requested, expected: verdicts[i] })),
);

describe('decide on protected paths', () => {
  it.each(ROWS)('$mode: $tool $requested → $expected', ({ mode, tool, requested, expected }) => {
    const kind = tool === 'read_file' ? 'read-only' : 'mutating';
    const paths = [resolveWorkspacePath(workspace, requested)];
    const decision = decide(mode, { toolName: tool, kind, args: { path: requested }, paths });
    expect(decision.decision).toBe(expected);
    if (expected === 'ask' && requested !== 'src/a.ts') {
      expect(decision.askEveryTime).toBe(true);
      expect(decision.reason).toMatch(/^\S+: .* so writing it always asks$/);
    } else {
      expect(decision.askEveryTime).toBeUndefined();
    }
  });

  it('a protected path among several still asks', () => {
    const paths = ['src/a.ts', '.git/config'].map((p) => resolveWorkspacePath(workspace, p));
    const decision = decide('accept-edits', { toolName: 'multi_edit', kind: 'mutating', args: {}, paths });
    expect(decision).toMatchObject({ decision: 'ask', askEveryTime: true });
  });
});
