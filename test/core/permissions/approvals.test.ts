import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalGate, type GateRequest } from '../../../src/core/permissions/approvals.js';
import type { ApprovalAnswer, ApprovalRequest, Approver } from '../../../src/core/permissions/types.js';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';

let tmp: string;
let workspace: Workspace;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-approvals-'));
  workspace = makeWorkspace(tmp);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function edit(file: string, extra: Partial<GateRequest> = {}): GateRequest {
  return {
    toolName: 'edit_file',
    kind: 'mutating',
    args: { path: file },
    paths: [resolveWorkspacePath(workspace, file)],
    label: file,
    ...extra,
  };
}

function bash(command: string, extra: Partial<GateRequest> = {}): GateRequest {
  return { toolName: 'bash', kind: 'mutating', args: { command }, paths: [], label: command, ...extra };
}

/** An approver that answers from a script and records what it was asked. */
function scriptedApprover(...answers: ApprovalAnswer[]): Approver & {
  calls: { request: ApprovalRequest; signal: AbortSignal }[];
} {
  const calls: { request: ApprovalRequest; signal: AbortSignal }[] = [];
  const approver = async (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer> => {
    calls.push({ request, signal });
    const answer = answers.shift();
    if (!answer) throw new Error(`approver asked more often than scripted: ${request.toolName} ${request.label}`);
    return answer;
  };
  return Object.assign(approver, { calls });
}

const signal = (): AbortSignal => new AbortController().signal;

describe('ApprovalGate', () => {
  it('allows what the policy allows without asking', async () => {
    const approver = scriptedApprover();
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    // A command allowed because it only reads carries the sandbox the tool must run it in.
    expect(await gate.check(bash('git status'), signal())).toEqual({ allowed: true, sandbox: 'read-only' });
    expect(await gate.check({ ...edit('a.ts'), kind: 'read-only', toolName: 'read_file' }, signal())).toEqual({
      allowed: true,
    });
    expect(approver.calls).toHaveLength(0);
  });

  it('denies what the policy denies, with its reason, without asking', async () => {
    const approver = scriptedApprover();
    const gate = new ApprovalGate({ mode: 'yolo', approver, headless: false });
    const outside = path.join(path.dirname(tmp), 'elsewhere', 'x.txt');
    const result = await gate.check(edit(outside), signal());
    expect(result.allowed).toBe(false);
    if (!result.allowed) expect(result.message).toMatch(/outside the workspace.*--add-dir/);
    expect(approver.calls).toHaveLength(0);
  });

  it('asks the approver with the label, args, reason and the very signal it was given', async () => {
    const approver = scriptedApprover('allow');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    const controller = new AbortController();
    expect(await gate.check(edit('src/a.ts'), controller.signal)).toEqual({ allowed: true });
    expect(approver.calls).toHaveLength(1);
    const [{ request, signal: passed }] = approver.calls;
    expect(request).toEqual({
      toolName: 'edit_file',
      label: 'src/a.ts',
      args: { path: 'src/a.ts' },
      reason: expect.stringContaining('edit_file'),
    });
    expect(request).not.toHaveProperty('jobId');
    expect(passed).toBe(controller.signal);
  });

  it('labels a sub-agent request with its job id', async () => {
    const approver = scriptedApprover('allow');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    await gate.check(bash('npm test', { jobId: 'job-3' }), signal());
    expect(approver.calls[0].request).toMatchObject({ toolName: 'bash', label: 'npm test', jobId: 'job-3' });
  });

  it('asks again after a one-time allow', async () => {
    const approver = scriptedApprover('allow', 'allow');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    await gate.check(edit('a.ts'), signal());
    await gate.check(edit('a.ts'), signal());
    expect(approver.calls).toHaveLength(2);
  });

  it('remembers allow-always per tool name for edits', async () => {
    const approver = scriptedApprover('allow-always', 'allow');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    await gate.check(edit('a.ts'), signal());
    expect(await gate.check(edit('b/c.ts'), signal())).toEqual({ allowed: true });
    expect(approver.calls).toHaveLength(1);
    await gate.check({ ...edit('d.ts'), toolName: 'write_file' }, signal());
    expect(approver.calls.map((c) => c.request.toolName)).toEqual(['edit_file', 'write_file']);
  });

  it('remembers allow-always for bash per exact command, not for bash as a whole', async () => {
    const approver = scriptedApprover('allow-always', 'deny');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    await gate.check(bash('npm test'), signal());
    expect(await gate.check(bash('npm test'), signal())).toEqual({ allowed: true });
    expect(approver.calls).toHaveLength(1);
    const other = await gate.check(bash('rm -rf build'), signal());
    expect(other.allowed).toBe(false);
    expect(approver.calls.map((c) => c.request.label)).toEqual(['npm test', 'rm -rf build']);
  });

  it('lets the policy deny even what was allowed always', async () => {
    const approver = scriptedApprover('allow-always');
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    await gate.check(edit('a.ts'), signal());
    gate.setMode('plan');
    const result = await gate.check(edit('a.ts'), signal());
    expect(result).toEqual({ allowed: false, message: expect.stringContaining('plan mode: edit_file') });
  });

  it('reports a user denial so the model can change course', async () => {
    const gate = new ApprovalGate({ mode: 'default', approver: scriptedApprover('deny'), headless: false });
    expect(await gate.check(edit('src/a.ts'), signal())).toEqual({
      allowed: false,
      message: 'The user denied edit_file (src/a.ts). Ask them or try another way.',
    });
  });

  it.each([
    {
      request: () => edit('src/a.ts'),
      message:
        'edit_file needs approval, and there is no one to ask in headless mode: ' +
        'rerun with --permission-mode accept-edits (edits) or --yolo (everything).',
    },
    {
      request: () => ({ ...edit('src/a.ts'), toolName: 'write_file' }),
      message:
        'write_file needs approval, and there is no one to ask in headless mode: ' +
        'rerun with --permission-mode accept-edits (edits) or --yolo (everything).',
    },
    {
      request: () => bash('npm install'),
      message: 'bash needs approval, and there is no one to ask in headless mode: rerun with --yolo.',
    },
    {
      request: (): GateRequest => ({ toolName: 'todo_write', kind: 'mutating', args: {}, paths: [], label: 'todos' }),
      message: 'todo_write needs approval, and there is no one to ask in headless mode: rerun with --yolo.',
    },
  ])('headless: $message', async ({ request, message }) => {
    const gate = new ApprovalGate({ mode: 'default', headless: true });
    expect(await gate.check(request(), signal())).toEqual({ allowed: false, message });
  });

  it('headless accept-edits still names --yolo for bash', async () => {
    const gate = new ApprovalGate({ mode: 'accept-edits', headless: true });
    expect(await gate.check(edit('src/a.ts'), signal())).toEqual({ allowed: true });
    const result = await gate.check(bash('make'), signal());
    expect(result).toEqual({ allowed: false, message: expect.stringMatching(/rerun with --yolo\.$/) });
  });

  describe('files that make programs run', () => {
    it('asks in accept-edits, every time: allow-always does not stick', async () => {
      const approver = scriptedApprover('allow-always', 'allow');
      const gate = new ApprovalGate({ mode: 'accept-edits', approver, headless: false });
      expect(await gate.check(edit('.git/config'), signal())).toEqual({ allowed: true });
      expect(await gate.check(edit('.git/config'), signal())).toEqual({ allowed: true });
      expect(approver.calls.map((c) => c.request.reason)).toEqual([
        expect.stringMatching(/^edit_file: \.git\/config is inside \.git: .* so writing it always asks$/),
        expect.stringMatching(/always asks$/),
      ]);
    });

    it('an earlier allow-always for the tool does not cover them', async () => {
      const approver = scriptedApprover('allow-always', 'deny');
      const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
      await gate.check(edit('src/a.ts'), signal());
      expect(await gate.check(edit('b.ts'), signal())).toEqual({ allowed: true });
      expect((await gate.check(edit('.claude/settings.json'), signal())).allowed).toBe(false);
      expect(approver.calls).toHaveLength(2);
    });

    it.each(['default', 'accept-edits'] as const)('headless %s: denied, saying why and naming --yolo', async (mode) => {
      const gate = new ApprovalGate({ mode, headless: true });
      expect(await gate.check(edit('.git/hooks/pre-commit'), signal())).toEqual({
        allowed: false,
        message:
          "edit_file needs approval (.git/hooks/pre-commit is inside .git: git's config and hooks there make git run programs, " +
          'so writing it always asks), and there is no one to ask in headless mode: rerun with --yolo.',
      });
    });

    it('yolo still allows them', async () => {
      const gate = new ApprovalGate({ mode: 'yolo', headless: true });
      expect(await gate.check(edit('.outrider/settings.json'), signal())).toEqual({ allowed: true });
    });
  });

  it('rejects with the abort reason when the signal aborts while the approver waits', async () => {
    const controller = new AbortController();
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    // A front end that never answers: only the abort can end the wait.
    const approver: Approver = () => {
      asked();
      return new Promise<ApprovalAnswer>(() => {});
    };
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    const pending = gate.check(edit('a.ts'), controller.signal);
    await wasAsked;
    const reason = new Error('interrupted');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('does not ask when the signal is already aborted', async () => {
    const approver = scriptedApprover();
    const gate = new ApprovalGate({ mode: 'default', approver, headless: false });
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(gate.check(edit('a.ts'), controller.signal)).rejects.toThrow('gone');
    expect(approver.calls).toHaveLength(0);
  });

  it('exposes and switches the mode', async () => {
    const gate = new ApprovalGate({ mode: 'default', headless: true });
    expect(gate.mode).toBe('default');
    expect((await gate.check(edit('a.ts'), signal())).allowed).toBe(false);
    gate.setMode('accept-edits');
    expect(gate.mode).toBe('accept-edits');
    expect(await gate.check(edit('a.ts'), signal())).toEqual({ allowed: true });
  });

  it('permissions.allow patterns are an "allow always" given in advance, headless too; protected paths still ask', async () => {
    const gate = new ApprovalGate({ mode: 'default', headless: true, allow: ['mcp__github__*', 'mcp__db__query'] });
    const mcp = (toolName: string): GateRequest => ({ toolName, kind: 'mutating', args: {}, paths: [], label: '' });
    expect(await gate.check(mcp('mcp__github__create_issue'), signal())).toEqual({ allowed: true });
    expect(await gate.check(mcp('mcp__db__query'), signal())).toEqual({ allowed: true });
    expect(await gate.check(mcp('mcp__db__drop'), signal())).toMatchObject({ allowed: false });
    expect(await gate.check(mcp('mcp__githubx__a'), signal())).toMatchObject({ allowed: false });
    const everything = new ApprovalGate({ mode: 'default', headless: true, allow: ['*'] });
    expect(await everything.check(edit('.git/config'), signal())).toMatchObject({ allowed: false });
    const plan = new ApprovalGate({ mode: 'plan', headless: true, allow: ['mcp__github__*'] });
    expect(await plan.check(mcp('mcp__github__create_issue'), signal())).toMatchObject({ allowed: false });
  });

  it("allowWhile: a command's allowed-tools answer ask only until its run settles, and never lift a deny", async () => {
    const gate = new ApprovalGate({ mode: 'default', headless: true });
    const mcp = (toolName: string): GateRequest => ({ toolName, kind: 'mutating', args: {}, paths: [], label: '' });
    const during = await gate.allowWhile(['mcp__github__*'], async () => [
      await gate.check(mcp('mcp__github__create_issue'), signal()),
      await gate.check(mcp('mcp__db__drop'), signal()),
      await gate.check(edit('.git/config'), signal()),
    ]);
    expect(during).toEqual([
      { allowed: true },
      expect.objectContaining({ allowed: false }),
      expect.objectContaining({ allowed: false }),
    ]);
    expect(await gate.check(mcp('mcp__github__create_issue'), signal())).toMatchObject({ allowed: false });
    await expect(gate.allowWhile(['*'], async () => Promise.reject(new Error('turn failed')))).rejects.toThrow('turn failed');
    expect(await gate.check(mcp('mcp__github__create_issue'), signal())).toMatchObject({ allowed: false });
  });
});
