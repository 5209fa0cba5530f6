import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decide } from '../../../src/core/permissions/policy.js';
import { namesProcessFiles } from '../../../src/core/permissions/process-files.js';
import type { PermissionMode, PermissionRequest } from '../../../src/core/permissions/types.js';
import type { ToolKind, Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';

// A process's environment, memory and arguments under /proc: where a provider key can be read.
let tmp: string;
let workspace: Workspace;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-proc-'));
  workspace = makeWorkspace(tmp);
  symlinkSync('/proc/self', path.join(tmp, 'me'));
  symlinkSync(`/proc/${process.pid}/environ`, path.join(tmp, 'env-link'));
  symlinkSync('/proc', path.join(tmp, 'procfs'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MODES: PermissionMode[] = ['plan', 'default', 'accept-edits', 'yolo'];
const request = (toolName: string, kind: ToolKind, requested: string): PermissionRequest => ({
  toolName,
  kind,
  args: { path: requested },
  paths: [resolveWorkspacePath(workspace, requested)],
});

describe('process files under /proc are refused to every tool, in every mode', () => {
  const REFUSED = [
    '/proc/self/environ',
    `/proc/${process.pid}/environ`,
    `/proc/${process.ppid}/environ`,
    '/proc/1/cmdline',
    '/proc/self/mem',
    '/proc/thread-self/environ',
    `/proc/${process.pid}/task/${process.pid}/environ`,
    '/proc/self/fd/0',
    '/proc',
    '/proc/',
    '/proc/self',
    '/proc/./self/environ',
    '/proc/net/../self/environ',
    // Links in the workspace: judged by where they really lead.
    'me/environ',
    'env-link',
    'procfs/1/environ',
    'procfs',
  ];
  const TOOLS: Array<[string, ToolKind]> = [
    ['read_file', 'read-only'],
    ['grep', 'read-only'],
    ['glob', 'read-only'],
    ['list_dir', 'read-only'],
    ['write_file', 'mutating'],
    ['edit_file', 'mutating'],
  ];
  it.each(REFUSED.flatMap((p) => TOOLS.flatMap(([tool, kind]) => MODES.map((mode) => ({ p, tool, kind, mode })))))(
    '$mode: $tool $p',
    ({ p, tool, kind, mode }) => {
      const decision = decide(mode, request(tool, kind, p));
      expect(decision.decision).toBe('deny');
      expect(decision.reason).toMatch(/under \/proc, where processes' environments, memory and arguments are/);
    },
  );

  it.each(['/proc/cpuinfo', '/proc/meminfo', '/proc/version', '/procedures.txt', 'proc/self/environ'])(
    '%s is no process file: reading it is allowed',
    (p) => {
      expect(decide('default', request('read_file', 'read-only', p)).decision).toBe('allow');
    },
  );
});

describe('shell commands that reach into /proc are asked about, never run as read-only', () => {
  const ASKED = [
    'cat /proc/$PPID/environ',
    'cat /proc/self/environ',
    "grep -c 'ANTHROPIC_API_KEY=sk-a' /proc/self/environ",
    "grep -a -o 'ANTHROPIC_API_KEY=[^\\0]*' /proc/*/environ",
    "cat '/pro''c/1/environ'",
    'cat "/proc"/1/cmdline',
    'cd / && cat proc/1/environ',
    'ls /proc',
    'cat /*/self/environ',
    'cat $P/environ',
    'head -c 100 /proc/1/mem',
    'cat `echo x`/cmdline',
    'grep -r sk-ant /proc/self',
    'rg ANTHROPIC /proc/1/',
    'cat /proc/1/task/1/environ',
    'cat /proc/self/status /proc/self/environ',
    'cat /proc/1/comm/../environ',
    'cd /proc/self && cat environ',
    'cat /proc/self/fd/3',
  ];
  it.each(ASKED)('%s', (command) => {
    expect(namesProcessFiles(command)).toBe(true);
    const decision = decide('default', { toolName: 'bash', kind: 'mutating', args: { command }, paths: [] });
    expect(decision.decision).toBe('ask');
    expect(decide('accept-edits', { toolName: 'bash', kind: 'mutating', args: { command }, paths: [] }).decision).toBe('ask');
    expect(decide('plan', { toolName: 'bash', kind: 'mutating', args: { command }, paths: [] }).decision).toBe('deny');
  });

  it.each([
    'grep -rn environment src',
    'grep -rn os.environ .',
    'cat src/process.ts',
    'ls processes',
    'rg memory src',
    'cat /proc/cpuinfo',
    'grep MemTotal /proc/meminfo',
    'cat /proc/1/comm',
    'cat /proc/self/status',
    'ls src/proc-macros',
  ])('%s still runs as read-only', (command) => {
    expect(namesProcessFiles(command)).toBe(false);
    expect(decide('default', { toolName: 'bash', kind: 'mutating', args: { command }, paths: [] }).decision).toBe('allow');
  });
});
