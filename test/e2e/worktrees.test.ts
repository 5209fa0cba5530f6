import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { barrier } from '../support/barrier.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
const git = (...args: string[]) =>
  execFileSync('git', args, { cwd: t.project, encoding: 'utf8', env: { ...process.env, ...gitEnv } });

beforeEach(() => {
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(t.project, 'a.txt'), 'original\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
});

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const lastResults = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1).content);

describe('isolated sub-agents end to end', () => {
  it('two worktree jobs edit a.txt in parallel; merged one after the other, the second conflict is named and the checkout unchanged', async () => {
    const both = barrier(2, { what: 'both children in flight' });
    let parentStep = 0;
    let checkoutBeforeMerges: string | undefined;
    let statusBeforeSecondMerge: string | undefined;
    t.mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        const which = JSON.stringify(request.body.messages[0].content).includes('FIRST') ? 'FIRST' : 'SECOND';
        if (request.body.messages.length === 1) {
          await both.arrive();
          return { toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: `${which}\n` } }] };
        }
        return { text: `wrote ${which}` };
      }
      parentStep += 1;
      switch (parentStep) {
        case 1:
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'write FIRST into a.txt', agent: 'general', isolation: 'worktree' } },
              { name: 'agent_start', args: { task: 'write SECOND into a.txt', agent: 'general', isolation: 'worktree' } },
            ],
          };
        case 2:
          return {
            toolCalls: [
              { name: 'agent_poll', args: { id: 'sub-1' } },
              { name: 'agent_poll', args: { id: 'sub-2' } },
            ],
          };
        case 3:
          checkoutBeforeMerges = readFileSync(path.join(t.project, 'a.txt'), 'utf8');
          return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-1' } }] };
        case 4:
          statusBeforeSecondMerge = git('status', '--porcelain');
          return { toolCalls: [{ name: 'agent_merge', args: { id: 'sub-2' } }] };
        default:
          return { text: 'merged what merges' };
      }
    });
    const result = await runCli(['-p', 'edit a.txt in two worktrees', '--yolo', '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
    });
    both.assertOpened();
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result).toBe('merged what merges');

    const parent = t.mock.requests.filter((r) => !isChild(r));
    const polls = lastResults(parent[2]!);
    expect(polls).toMatch(/branch outrider\/[^ ]+\/sub-1 · 1 file changed \(\+1 −1\): a\.txt/);
    expect(polls).toMatch(/branch outrider\/[^ ]+\/sub-2 · 1 file changed \(\+1 −1\): a\.txt/);
    // The children wrote their worktrees, not the checkout.
    expect(checkoutBeforeMerges).toBe('original\n');
    expect(lastResults(parent[3]!)).toContain('Merged sub-1: applied a.txt to the checkout');
    const second = lastResults(parent[4]!);
    expect(second).toContain('Did not merge sub-2: nothing in the checkout was changed. Conflicting files:');
    expect(second).toContain('- a.txt: conflict (content)');
    expect(readFileSync(path.join(t.project, 'a.txt'), 'utf8')).toBe('FIRST\n');
    expect(git('status', '--porcelain')).toBe(statusBeforeSecondMerge);
    expect(git('status', '--porcelain')).toBe(' M a.txt\n');

    // The conflicting job's worktree is kept (and recorded for a resume); the merged one is gone.
    const sessions = path.join(t.home, 'sessions');
    const [session] = readdirSync(sessions);
    const kept = readdirSync(path.join(sessions, session!, 'worktrees')).sort();
    expect(kept).toEqual(['sub-2', 'sub-2.json']);
    expect(existsSync(path.join(sessions, session!, 'worktrees', 'sub-2', 'a.txt'))).toBe(true);
    expect(git('for-each-ref', '--format=%(refname:short)', 'refs/heads/outrider').trim()).toMatch(/^outrider\/[^/]+\/sub-2$/);
  });
});
