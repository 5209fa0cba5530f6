import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { PermissionRules } from '../../../src/core/permissions/rule-match.js';
import { createMergeCheck, mergeCheckFor } from '../../../src/core/worktrees/merge-check.js';
import { requireBwrap } from '../../support/bwrap.js';
import { until } from '../../support/until.js';
import { branches, checkoutState, extraWorktrees, merge, useMergeFixture } from './merge-fixture.js';

const { temp, repo, jobs } = useMergeFixture();

const three = {
  'sub-1': { 'b.txt': 'bee\n' },
  'sub-2': { 'c.txt': 'sea\n' },
  'sub-3': { 'd.txt': 'dee\n' },
};

/** Whether process `pid` still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A check that starts `sleep 1000`, writes its pid to a file, and waits for it: it ends only when killed. */
function hangingCheck(pidFile: string): string {
  return `sleep 1000 & echo $! > ${pidFile}; wait`;
}

describe('the merge check (agents.mergeCheck)', () => {
  it('a failing check after the second job stops there, names it with its exit code and its last 20 lines', async () => {
    const dir = repo();
    const check = createMergeCheck({
      command: 'if [ "$OUTRIDER_MERGE_JOB" = sub-2 ]; then for i in $(seq 1 30); do echo "failure line $i"; done; exit 3; fi',
    });
    const worktrees = await jobs(dir, three, check);
    const before = checkoutState(dir);

    const result = await merge(worktrees, 'all');

    expect(result.isError).toBe(true);
    const lines = result.content.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `Did not merge sub-1, sub-2, sub-3: the check \`${check!.command}\` failed after sub-2 was applied (exit code 3). Nothing in the checkout was changed, and every job’s branch and worktree is kept.`,
      'Applied cleanly before it, in a temporary worktree (now removed): sub-1 (check passed).',
      'Not tried: sub-3.',
      "Last lines of the check's output:",
    ]);
    expect(lines.slice(4)).toEqual(Array.from({ length: 20 }, (_, i) => `  failure line ${i + 11}`));
    expect(checkoutState(dir)).toEqual(before);
    expect(branches(dir)).toHaveLength(3);
    expect(extraWorktrees(dir)).toHaveLength(3);
  });

  it('a check that hangs is killed at its timeout, its processes with it, and the merge reported failed', async () => {
    const dir = repo();
    const pidFile = path.join(temp('outrider-mq-pid-'), 'pid');
    const check = createMergeCheck({ command: hangingCheck(pidFile), timeoutMs: 300 });
    const worktrees = await jobs(dir, three, check);
    const before = checkoutState(dir);

    const result = await merge(worktrees, 'sub-1 sub-2');

    expect(result.isError).toBe(true);
    expect(result.content).toContain('failed after sub-1 was applied (timed out after 0.3s; its processes were killed)');
    expect(result.content).toContain('Not tried: sub-2.');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await until(() => !alive(pid), { what: `the check's sleep (pid ${pid}) to be killed` });
    expect(checkoutState(dir)).toEqual(before);
    expect(branches(dir)).toHaveLength(3);
    expect(extraWorktrees(dir)).toHaveLength(3);
  });

  it('a stop of the merge kills the running check and changes nothing', async () => {
    const dir = repo();
    const pidFile = path.join(temp('outrider-mq-pid-'), 'pid');
    const check = createMergeCheck({ command: hangingCheck(pidFile) });
    const worktrees = await jobs(dir, three, check);
    const before = checkoutState(dir);
    const stop = new AbortController();

    const merging = merge(worktrees, 'sub-2 sub-1', { signal: stop.signal });
    const pid = await until(() => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8')), {
      what: 'the check to start its sleep',
    });
    stop.abort();
    const result = await merging;

    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Did not merge sub-2, sub-1: the merge was interrupted while checking sub-2\./);
    await until(() => !alive(pid), { what: `the check's sleep (pid ${pid}) to be killed` });
    expect(checkoutState(dir)).toEqual(before);
    expect(branches(dir)).toHaveLength(3);
    expect(extraWorktrees(dir)).toHaveLength(3);
  });

  it("obeys the session's deny rules, and runs inside its sandbox: its worktree is writable, what is outside is not", async () => {
    const dir = repo();
    const denied = mergeCheckFor(
      { mergeCheck: 'npm test' },
      { rules: new PermissionRules({ deny: ['Bash(npm:*)'] }, { roots: [dir] }) },
    );
    const refused = await merge(await jobs(dir, { 'sub-1': { 'b.txt': 'bee\n' } }, denied), '1');
    expect(refused.content).toContain('failed after sub-1 was applied (refused by the permission rule "Bash(npm:*)")');

    const probe = await requireBwrap(makeWorkspace(dir));
    const outside = path.join(os.homedir(), `outrider-merge-check-${randomBytes(4).toString('hex')}`);
    const fenced = mergeCheckFor(
      // Writing in its own (temporary) worktree works; writing outside the workspace does not.
      { mergeCheck: `echo built > out.log && touch ${JSON.stringify(outside)}` },
      {
        rules: new PermissionRules({}, { roots: [dir] }),
        sandbox: { config: { mode: 'workspace-write', network: false }, probe: () => Promise.resolve(probe) },
      },
    );
    const other = repo();
    try {
      const result = await merge(await jobs(other, { 'sub-1': { 'b.txt': 'bee\n' } }, fenced), '1');
      expect(result.isError).toBe(true);
      expect(result.content).toMatch(/\(exit code 1\)[\s\S]*Read-only file system/);
      expect(existsSync(outside)).toBe(false);
      expect(existsSync(path.join(other, 'b.txt'))).toBe(false);
    } finally {
      rmSync(outside, { force: true });
    }
  });

  it('is none without a command, and bounded by 10 minutes unless told', () => {
    const rules = new PermissionRules({}, { roots: [] });
    expect(mergeCheckFor(undefined, { rules })).toBeUndefined();
    expect(mergeCheckFor({ mergeCheck: '   ' }, { rules })).toBeUndefined();
    expect(mergeCheckFor({ mergeCheck: 'npm test' }, { rules })).toMatchObject({ command: 'npm test', timeoutMs: 600_000 });
    expect(mergeCheckFor({ mergeCheck: 'make check', mergeCheckTimeoutMs: 5000 }, { rules })?.timeoutMs).toBe(5000);
  });
});
