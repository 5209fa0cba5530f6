/**
 * A session whose last turn ran tool calls without thinking, resumed with `--effort high`: real
 * sessions (openSession, the real Anthropic SDK) against the mock provider, which refuses as the
 * Messages API does a thinking request whose tool-use turn did not begin with thinking.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { testDirs } from '../../support/test-session.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
const opened: OpenedSession[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  mock.reset();
});

describe('a session resumed with an effort after a turn of tool calls without thinking', () => {
  it('answers the open turn without thinking (no 400), and thinks again from the next prompt', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'a.txt'), 'alpha\n');
    const env = { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL };
    const open = async (flags: SessionSetup['flags']) => {
      const session = await openSession({ cwd: dirs.cwd, env, headless: true, flags: { model: 'claude-sonnet-4-5', ...flags } });
      opened.push(session);
      return (prompt: string) => session.session.submit(prompt, new AbortController().signal);
    };

    // The first run, without an effort, stops after its tool call: its history ends in the result.
    mock.script({ toolCalls: [{ id: 'toolu_a', name: 'read_file', args: { path: 'a.txt' } }] });
    const first = await open({ maxTurns: 1 });
    expect((await first('read a.txt')).cause).toMatchObject({ kind: 'limit', limit: 'maxTurns' });
    const id = opened[0]!.session.id;
    await opened[0]!.close();
    opened.length = 0;

    mock.script({ text: 'It says alpha.' }, { text: 'Nothing else.', thinking: 'Check again.' });
    const resumed = await open({ resume: id, effort: 'high' });
    expect((await resumed('go on')).cause).toEqual({ kind: 'completed' });
    const goOn = mock.requests[1]!;
    expect(goOn.body.messages.at(-2).content).toEqual([expect.objectContaining({ type: 'tool_use', id: 'toolu_a' })]);
    expect(goOn.body).not.toHaveProperty('thinking');

    expect((await resumed('anything else?')).cause).toEqual({ kind: 'completed' });
    expect(mock.requests).toHaveLength(3);
    const fresh = mock.requests[2]!;
    expect(fresh.body.thinking).toEqual({ type: 'enabled', budget_tokens: 20_000 });
    expect(JSON.stringify(fresh.body.messages)).toContain('It says alpha.');
  });
});
