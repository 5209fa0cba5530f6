import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChildPermissions } from '../../../src/core/agents/agent-definition.js';
import { childGate, narrowerMode } from '../../../src/core/agents/child-gate.js';
import { childPermissions } from '../../../src/core/agents/claude-compat.js';
import { ApprovalGate } from '../../../src/core/permissions/approvals.js';
import type { ApprovalAnswer, ApprovalRequest, PermissionMode } from '../../../src/core/permissions/types.js';
import { builtinTools } from '../../../src/core/tools/builtin.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry } from '../../../src/core/tools/registry.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'outrider-child-gate-'));
const workspace = makeWorkspace(root);
const tools = new ToolRegistry(builtinTools({ findRg: () => undefined }));

const calls = {
  read: { tool: tools.get('read_file')!, args: { path: 'a.txt' }, label: 'a.txt' },
  write: { tool: tools.get('write_file')!, args: { path: 'a.txt', content: 'x' }, label: 'a.txt' },
  writeOutside: {
    tool: tools.get('write_file')!,
    args: { path: '/tmp/elsewhere.txt', content: 'x' },
    label: '/tmp/elsewhere.txt',
  },
  ls: { tool: tools.get('bash')!, args: { command: 'ls' }, label: 'ls' },
  npmTest: { tool: tools.get('bash')!, args: { command: 'npm test' }, label: 'npm test' },
};

function approver(answer: ApprovalAnswer = 'allow') {
  const asked: ApprovalRequest[] = [];
  const fn = async (request: ApprovalRequest) => {
    asked.push(request);
    return answer;
  };
  return Object.assign(fn, { asked });
}

const permissions = (value: string): ChildPermissions => childPermissions(value)!;

function setup(options: { session: PermissionMode; agent?: string; headless?: boolean; answer?: ApprovalAnswer }) {
  const ask = approver(options.answer);
  const session = new ApprovalGate({ mode: options.session, approver: ask, headless: options.headless ?? false });
  const gate = childGate({
    session,
    workspace,
    jobId: 'sub-1',
    definition: { name: 'reviewer', permissions: options.agent === undefined ? undefined : permissions(options.agent) },
    approver: options.headless ? undefined : ask,
    headless: options.headless ?? false,
  });
  const check = (call: keyof typeof calls) => gate(calls[call], new AbortController().signal);
  return { session, check, asked: ask.asked };
}

describe('narrowerMode', () => {
  it('orders plan < default < accept-edits < yolo', () => {
    expect(narrowerMode('yolo', 'plan')).toBe('plan');
    expect(narrowerMode('accept-edits', 'default')).toBe('default');
    expect(narrowerMode('yolo', 'accept-edits')).toBe('accept-edits');
    expect(narrowerMode('default', 'default')).toBe('default');
  });
});

describe('childGate: permissionMode never widens the session', () => {
  // [session mode, agent permissionMode, call, expected]: "ask" = the user was asked (and said yes).
  const table: Array<[PermissionMode, string | undefined, keyof typeof calls, 'allow' | 'sandboxed' | 'ask' | 'deny']> = [
    ['yolo', undefined, 'write', 'allow'],
    ['default', undefined, 'write', 'ask'],
    ['yolo', 'plan', 'write', 'deny'],
    ['yolo', 'plan', 'npmTest', 'deny'],
    ['yolo', 'plan', 'ls', 'sandboxed'],
    ['yolo', 'plan', 'read', 'allow'],
    ['yolo', 'default', 'write', 'ask'],
    ['yolo', 'acceptEdits', 'write', 'allow'],
    ['yolo', 'acceptEdits', 'npmTest', 'ask'],
    // A yolo session would run `ls` without the read-only sandbox; under the agent's cap it keeps it.
    ['yolo', 'acceptEdits', 'ls', 'sandboxed'],
    ['default', 'bypassPermissions', 'write', 'ask'],
    ['default', 'bypassPermissions', 'npmTest', 'ask'],
    ['plan', 'bypassPermissions', 'write', 'deny'],
    ['plan', 'acceptEdits', 'write', 'deny'],
    ['accept-edits', 'default', 'write', 'ask'],
    ['default', 'dontAsk', 'write', 'deny'],
    ['default', 'dontAsk', 'ls', 'sandboxed'],
    ['yolo', 'dontAsk', 'write', 'deny'],
    ['yolo', 'dontAsk', 'read', 'allow'],
  ];

  it.each(table)('session %s, agent %s, %s: %s', async (sessionMode, agent, call, expected) => {
    const { check, asked } = setup({ session: sessionMode, agent });
    const result = await check(call);
    if (expected === 'deny') {
      expect(result.allowed).toBe(false);
      expect(asked).toEqual([]);
      return;
    }
    expect(result).toEqual(expected === 'sandboxed' ? { allowed: true, sandbox: 'read-only' } : { allowed: true });
    expect(asked.map((r) => [r.toolName, r.jobId])).toEqual(expected === 'ask' ? [[calls[call].tool.name, 'sub-1']] : []);
  });

  it('says the definition is the limit, so the model does not hunt for a flag', async () => {
    expect(await setup({ session: 'yolo', agent: 'plan' }).check('write')).toEqual({
      allowed: false,
      message: "write_file is not allowed here: reviewer's definition sets permissionMode: plan.",
    });
    const quiet = await setup({ session: 'default', agent: 'dontAsk' }).check('write');
    expect(quiet).toMatchObject({ allowed: false });
    expect(quiet.allowed || quiet.message).toMatch(
      /^write_file needs approval \(.*\), and reviewer's definition sets permissionMode: dontAsk: it runs only what needs no asking\.$/,
    );
    const headless = await setup({ session: 'yolo', agent: 'acceptEdits', headless: true }).check('npmTest');
    expect(headless.allowed || headless.message).toMatch(
      /^bash needs approval \(.*\); there is no one to ask, and reviewer's definition sets permissionMode: acceptEdits\.$/,
    );
  });

  it("keeps the session's own reason when the session would deny too (a path outside the workspace)", async () => {
    const result = await setup({ session: 'yolo', agent: 'acceptEdits' }).check('writeOutside');
    expect(result.allowed || result.message).toMatch(/outside the workspace; rerun with --add-dir/);
  });

  it("follows the session's mode as the user changes it, and shares its answers when not narrowed", async () => {
    const { session, check, asked } = setup({ session: 'default', agent: 'acceptEdits', answer: 'allow-always' });
    expect(await check('write')).toEqual({ allowed: true });
    expect(asked).toHaveLength(1);
    // The answer went into the session's gate: the parent's next write is not asked either.
    expect(
      await session.check(
        { toolName: 'write_file', kind: 'mutating', args: {}, paths: [], label: 'b.txt' },
        new AbortController().signal,
      ),
    ).toEqual({
      allowed: true,
    });
    session.setMode('yolo');
    expect(await check('npmTest')).toEqual({ allowed: true });
    expect(asked.map((r) => r.toolName)).toEqual(['write_file', 'bash']);
    session.setMode('plan');
    expect((await check('write')).allowed).toBe(false);
  });
});
