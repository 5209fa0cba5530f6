import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isChildRequest, testDirs, useTestSessions } from '../../support/test-session.js';

const openWith = useTestSessions();

/** A test's folders with the user's agent files, each `[name, front matter lines]`. */
function dirsWithAgents(...agents: Array<[string, string]>) {
  const dirs = testDirs();
  const folder = path.join(dirs.env.OUTRIDER_HOME, 'agents');
  mkdirSync(folder, { recursive: true });
  for (const [name, frontMatter] of agents) {
    writeFileSync(path.join(folder, `${name}.md`), `---\nname: ${name}\ndescription: A helper.\n${frontMatter}---\nYou help.\n`);
  }
  return dirs;
}

describe('reasoning effort in a session', () => {
  it("sends the session's effort on the parent's calls, a definition's own on its jobs' calls, and shows it on each job", async () => {
    const dirs = dirsWithAgents(['light', 'effort: low\n'], ['plain', '']);
    let step = 0;
    const { session, submit, stream } = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'report' };
        step += 1;
        if (step === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'light task', agent: 'light' } },
              { name: 'agent_start', args: { task: 'plain task', agent: 'plain' } },
            ],
          };
        }
        return { text: 'done' };
      },
      { dirs, flags: { effort: 'high' } },
    );
    await submit('go');
    await session.waitForAgents(new AbortController().signal);

    expect(session.effort).toBe('high');
    const parent = stream.requests.filter((r) => !isChildRequest(r));
    expect(parent.map((r) => r.effort)).toEqual(parent.map(() => 'high'));
    const byTask = (task: string) =>
      stream.requests.filter((r) => isChildRequest(r) && JSON.stringify(r.messages).includes(task)).map((r) => r.effort);
    expect(byTask('light task')).toEqual(['low']);
    expect(byTask('plain task')).toEqual(['high']);
    expect(session.jobs().map((job) => [job.definition, job.effort])).toEqual([
      ['light', 'low'],
      ['plain', 'high'],
    ]);
    expect(session.warnings.join('\n')).not.toMatch(/effort/);
  });

  it('sends no effort to a model the catalogue names for none, and says so once', async () => {
    const dirs = dirsWithAgents(['deep', 'effort: max\n']);
    let step = 0;
    const { session, submit, stream, events } = await openWith(
      (request) => {
        if (isChildRequest(request)) return { text: 'report' };
        step += 1;
        if (step === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'a', agent: 'deep' } },
              { name: 'agent_start', args: { task: 'b', agent: 'deep' } },
            ],
          };
        }
        return { text: 'done' };
      },
      { dirs, flags: { effort: 'max', model: 'claude-3-5-haiku-latest' } },
    );
    await submit('go');
    await session.waitForAgents(new AbortController().signal);

    expect(session.effort).toBeUndefined();
    expect(
      session.warnings.filter((w) => w.startsWith('effort max: claude-3-5-haiku-latest takes no reasoning effort')),
    ).toHaveLength(1);
    expect(stream.requests.map((r) => r.effort)).toEqual(stream.requests.map(() => undefined));
    expect(session.jobs().map((job) => job.effort)).toEqual([undefined, undefined]);
    // The jobs' own effort on the same model: one notice for both.
    const notices = events.filter((e) => e.type === 'notice' && e.text.startsWith('effort max:'));
    expect(notices).toHaveLength(1);
  });
});
