import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalGate, type GateRequest } from '../../../src/core/permissions/approvals.js';
import { type HookPermissionHint, withHookHint } from '../../../src/core/permissions/hook-decision.js';
import { decide } from '../../../src/core/permissions/policy.js';
import type { ApprovalRequest, PermissionMode } from '../../../src/core/permissions/types.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';

let tmp: string;
let workspace: Workspace;
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-hook-decision-'));
  workspace = makeWorkspace(tmp);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const allow = { decision: 'allow' as const, reason: 'the hook knows this script' };
const ask = { decision: 'ask' as const, reason: 'touches prod' };

const bash = (command: string): GateRequest => ({
  toolName: 'bash',
  kind: 'mutating',
  args: { command },
  paths: [],
  label: command,
});
const write = (file: string): GateRequest => ({
  toolName: 'write_file',
  kind: 'mutating',
  args: { path: file },
  paths: [resolveWorkspacePath(workspace, file)],
  label: file,
});
const read = (file: string): GateRequest => ({ ...write(file), toolName: 'read_file', kind: 'read-only' });

const judged = (mode: PermissionMode, request: GateRequest, hint: HookPermissionHint = allow) =>
  withHookHint(decide(mode, request), hint);

describe("withHookHint: a hook's allow answers an ordinary ask, and nothing more", () => {
  it('turns an ordinary ask into an allow (with no sandbox: as if the user approved)', () => {
    expect(decide('default', bash('npm install')).decision).toBe('ask');
    expect(judged('default', bash('npm install'))).toEqual({
      decision: 'allow',
      reason: 'allowed by a PreToolUse hook: the hook knows this script',
    });
  });

  it('keeps the read-only sandbox of a command the policy allows by itself', () => {
    expect(judged('default', bash('ls -la'))).toMatchObject({ decision: 'allow', sandbox: 'read-only' });
  });

  it('does not lift a denial: plan mode, outside the workspace', () => {
    expect(judged('plan', bash('rm -rf build')).decision).toBe('deny');
    expect(judged('yolo', write('/etc/passwd')).decision).toBe('deny');
  });

  it('does not answer the asks that come every time: writing .git/, .outrider/, .claude/', () => {
    for (const file of ['.git/hooks/pre-commit', '.outrider/settings.json', '.claude/settings.json']) {
      expect(judged('accept-edits', write(file))).toMatchObject({ decision: 'ask', askEveryTime: true });
    }
  });
});

describe("withHookHint: a hook's ask", () => {
  it('makes an allowed call ask, every time', () => {
    expect(judged('yolo', bash('deploy'), ask)).toEqual({
      decision: 'ask',
      reason: 'a PreToolUse hook asks: touches prod',
      askEveryTime: true,
    });
    expect(judged('default', read('a.txt'), ask).decision).toBe('ask');
  });

  it('adds its reason to an ask, and never lifts a deny', () => {
    expect(judged('default', bash('make'), ask).reason).toMatch(/may change files; a PreToolUse hook asks: touches prod$/);
    expect(judged('plan', bash('make'), ask).decision).toBe('deny');
  });
});

describe('the gate with hook hints', () => {
  it('headless: an allowed hook runs what would have needed asking; an ask is denied naming the hook', async () => {
    const gate = new ApprovalGate({ mode: 'default', headless: true });
    const signal = new AbortController().signal;
    expect(await gate.check({ ...bash('npm install'), hook: allow }, signal)).toEqual({ allowed: true });
    const asked = await gate.check({ ...bash('ls'), hook: ask }, signal);
    expect(asked).toMatchObject({ allowed: false });
    expect((asked as { message: string }).message).toContain('a PreToolUse hook asks: touches prod');
    expect(await gate.check(bash('npm install'), signal)).toMatchObject({ allowed: false });
  });

  it("an allow-always answer to a hook's ask does not stick", async () => {
    const requests: ApprovalRequest[] = [];
    const gate = new ApprovalGate({
      mode: 'yolo',
      headless: false,
      approver: async (request) => {
        requests.push(request);
        return 'allow-always';
      },
    });
    const signal = new AbortController().signal;
    expect(await gate.check({ ...bash('deploy'), hook: ask }, signal)).toEqual({ allowed: true });
    expect(await gate.check({ ...bash('deploy'), hook: ask }, signal)).toEqual({ allowed: true });
    expect(requests).toHaveLength(2);
    expect(requests[0]!.reason).toBe('a PreToolUse hook asks: touches prod');
  });
});
