import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolKind, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';
import { decide } from '../../../src/core/permissions/policy.js';
import type { PermissionMode, PermissionRequest } from '../../../src/core/permissions/types.js';

// A real directory tree, so the symlink escape is resolved by the real resolver:
//   <tmp>/ws/src/a.ts, <tmp>/ws/link -> <tmp>/outside, <tmp>/outside/b.txt
let tmp: string;
let workspace: Workspace;
let workspaceWithAddedDir: Workspace;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-policy-'));
  mkdirSync(path.join(tmp, 'ws', 'src'), { recursive: true });
  mkdirSync(path.join(tmp, 'outside'));
  writeFileSync(path.join(tmp, 'ws', 'src', 'a.ts'), 'export {};\n');
  writeFileSync(path.join(tmp, 'outside', 'b.txt'), 'b\n');
  symlinkSync(path.join(tmp, 'outside'), path.join(tmp, 'ws', 'link'));
  // Dangling: the file it names does not exist yet; writing through it would create it outside.
  symlinkSync(path.join(tmp, 'outside', 'new.txt'), path.join(tmp, 'ws', 'dangling'));
  workspace = makeWorkspace(path.join(tmp, 'ws'));
  workspaceWithAddedDir = makeWorkspace(path.join(tmp, 'ws'), [path.join(tmp, 'outside')]);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

type Where = 'inside' | 'outside' | 'symlink' | 'dangling symlink' | 'symlink+add-dir' | 'no paths';
type Tool = 'read_file' | 'write_file' | 'edit_file' | 'bash read-only' | 'bash mutating' | 'other mutating' | 'web_fetch';
type Verdict = 'allow' | 'ask' | 'deny';

/** The path each location stands for; `symlink` goes through ws/link, which points outside. */
function pathsFor(where: Where): { workspace: Workspace; requested: string[] } {
  switch (where) {
    case 'inside':
      return { workspace, requested: ['src/a.ts'] };
    case 'outside':
      return { workspace, requested: [path.join(tmp, 'outside', 'b.txt')] };
    case 'symlink':
      return { workspace, requested: ['link/b.txt'] };
    case 'dangling symlink':
      return { workspace, requested: ['dangling'] };
    case 'symlink+add-dir':
      return { workspace: workspaceWithAddedDir, requested: ['link/b.txt'] };
    case 'no paths':
      return { workspace, requested: [] };
  }
}

function requestFor(tool: Tool, where: Where): PermissionRequest {
  const { workspace: ws, requested } = pathsFor(where);
  const paths = requested.map((p) => resolveWorkspacePath(ws, p));
  const toolCall: Record<Tool, { toolName: string; kind: ToolKind; args: unknown }> = {
    read_file: { toolName: 'read_file', kind: 'read-only', args: { path: requested[0] } },
    write_file: { toolName: 'write_file', kind: 'mutating', args: { path: requested[0], content: 'x' } },
    edit_file: { toolName: 'edit_file', kind: 'mutating', args: { path: requested[0], old: 'a', new: 'b' } },
    'bash read-only': { toolName: 'bash', kind: 'mutating', args: { command: 'git log --oneline -5' } },
    'bash mutating': { toolName: 'bash', kind: 'mutating', args: { command: 'npm install' } },
    'other mutating': { toolName: 'todo_write', kind: 'mutating', args: {} },
    web_fetch: { toolName: 'web_fetch', kind: 'network', args: { url: 'https://example.com/' } },
  };
  return { ...toolCall[tool], paths };
}

// tool, where, then the verdict in: default, accept-edits, plan, yolo.
// bash normally declares no paths; the rows with paths check that the outside rule is generic.
const TABLE: [Tool, Where, Verdict, Verdict, Verdict, Verdict][] = [
  ['read_file', 'inside', 'allow', 'allow', 'allow', 'allow'],
  ['read_file', 'outside', 'allow', 'allow', 'allow', 'allow'],
  ['read_file', 'symlink', 'allow', 'allow', 'allow', 'allow'],
  ['write_file', 'inside', 'ask', 'allow', 'deny', 'allow'],
  ['write_file', 'outside', 'deny', 'deny', 'deny', 'deny'],
  ['write_file', 'symlink', 'deny', 'deny', 'deny', 'deny'],
  ['write_file', 'dangling symlink', 'deny', 'deny', 'deny', 'deny'],
  ['write_file', 'symlink+add-dir', 'ask', 'allow', 'deny', 'allow'],
  ['edit_file', 'inside', 'ask', 'allow', 'deny', 'allow'],
  ['edit_file', 'outside', 'deny', 'deny', 'deny', 'deny'],
  ['edit_file', 'symlink', 'deny', 'deny', 'deny', 'deny'],
  ['edit_file', 'dangling symlink', 'deny', 'deny', 'deny', 'deny'],
  ['edit_file', 'symlink+add-dir', 'ask', 'allow', 'deny', 'allow'],
  // Plan mode is for looking around: commands that only read still run.
  ['bash read-only', 'no paths', 'allow', 'allow', 'allow', 'allow'],
  ['bash read-only', 'inside', 'allow', 'allow', 'allow', 'allow'],
  ['bash read-only', 'outside', 'deny', 'deny', 'deny', 'deny'],
  ['bash read-only', 'symlink', 'deny', 'deny', 'deny', 'deny'],
  ['bash mutating', 'no paths', 'ask', 'ask', 'deny', 'allow'],
  ['bash mutating', 'inside', 'ask', 'ask', 'deny', 'allow'],
  ['bash mutating', 'outside', 'deny', 'deny', 'deny', 'deny'],
  ['bash mutating', 'symlink', 'deny', 'deny', 'deny', 'deny'],
  // A mutating tool naming no paths cannot be vouched for as "an edit inside the workspace".
  ['other mutating', 'no paths', 'ask', 'ask', 'deny', 'allow'],
  ['other mutating', 'inside', 'ask', 'allow', 'deny', 'allow'],
  ['other mutating', 'symlink', 'deny', 'deny', 'deny', 'deny'],
  // A request leaves the machine: asked in every mode but yolo, plan included.
  ['web_fetch', 'no paths', 'ask', 'ask', 'ask', 'allow'],
];

const MODES: PermissionMode[] = ['default', 'accept-edits', 'plan', 'yolo'];
const ROWS = TABLE.flatMap(([tool, where, ...verdicts]) =>
  MODES.map((mode, i) => ({ mode, tool, where, expected: verdicts[i] })),
);

describe('decide', () => {
  it('builds a symlink that really escapes the workspace', () => {
    const [link] = requestFor('edit_file', 'symlink').paths;
    expect(link.absolute.startsWith(workspace.root)).toBe(true);
    expect(link.real).toBe(path.join(workspace.root, '..', 'outside', 'b.txt'));
    expect(link.inside).toBe(false);
  });

  it.each(ROWS)('$mode: $tool, $where → $expected', ({ mode, tool, where, expected }) => {
    const decision = decide(mode, requestFor(tool, where));
    expect(decision.decision).toBe(expected);
    expect(decision.reason).not.toMatch(/\n/);
    expect(decision.reason.length).toBeGreaterThan(0);
  });

  const REASONS: { mode: PermissionMode; tool: Tool; where: Where; says: (string | RegExp)[] }[] = [
    { mode: 'default', tool: 'read_file', where: 'outside', says: ['read_file', 'outside the workspace', 'allowed'] },
    { mode: 'plan', tool: 'write_file', where: 'inside', says: ['plan mode: write_file is not allowed', '--permission-mode'] },
    { mode: 'plan', tool: 'bash mutating', where: 'no paths', says: ['plan mode: bash is not allowed'] },
    {
      mode: 'yolo',
      tool: 'edit_file',
      where: 'outside',
      says: ['edit_file', '/outside/b.txt', 'outside the workspace', /--add-dir \S*outside\b/],
    },
    { mode: 'yolo', tool: 'write_file', where: 'symlink', says: ['link/b.txt', '/outside/b.txt', /--add-dir \S*outside\b/] },
    { mode: 'default', tool: 'bash mutating', where: 'no paths', says: ['bash: "npm install" may change files'] },
    { mode: 'default', tool: 'bash read-only', where: 'no paths', says: ['bash: "git log --oneline -5"'] },
    { mode: 'accept-edits', tool: 'edit_file', where: 'inside', says: ['edit_file inside the workspace (accept-edits)'] },
    { mode: 'default', tool: 'edit_file', where: 'inside', says: ['edit_file', 'approval'] },
    { mode: 'plan', tool: 'web_fetch', where: 'no paths', says: ['web_fetch sends a request over the network', 'plan mode'] },
  ];

  it.each(REASONS)('$mode: $tool, $where explains itself', ({ mode, tool, where, says }) => {
    const { reason } = decide(mode, requestFor(tool, where));
    for (const fragment of says) {
      if (typeof fragment === 'string') expect(reason).toContain(fragment);
      else expect(reason).toMatch(fragment);
    }
  });

  it.each(ROWS)('$mode: $tool, $where → sandboxed only when allowed as read-only bash', ({ mode, tool, where }) => {
    const decision = decide(mode, requestFor(tool, where));
    const readOnlyBash = tool === 'bash read-only' && decision.decision === 'allow' && mode !== 'yolo';
    expect(decision.sandbox).toBe(readOnlyBash ? 'read-only' : undefined);
  });

  it('quotes a long or multi-line bash command on one short line', () => {
    const command = `echo start\n${'x'.repeat(200)}`;
    const { decision, reason } = decide('default', { toolName: 'bash', kind: 'mutating', args: { command }, paths: [] });
    expect(decision).toBe('ask');
    expect(reason).not.toMatch(/\n/);
    expect(reason.length).toBeLessThan(120);
  });

  it('asks when a bash call has no readable command', () => {
    const decision = decide('default', { toolName: 'bash', kind: 'mutating', args: { cmd: 'ls' }, paths: [] });
    expect(decision.decision).toBe('ask');
  });
});
