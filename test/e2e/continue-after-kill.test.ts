/**
 * `--continue` after `kill -9`, through the built binary, against a mock that refuses what the
 * strictest provider refuses (roles that do not alternate, a call without its result): the
 * prompt the kill left unanswered and the new one go out as one user message, both kept.
 */
import { appendFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type MockProvider, type Reply, startMockProvider } from '../support/mock-provider.js';
import { runCli, startCli, tempDirs, TEST_KEY } from '../support/run-cli.js';
import { until } from '../support/until.js';

let mock: MockProvider;
let project: string;
let home: string;
beforeAll(async () => {
  mock = await startMockProvider({ strictTurns: true });
});
afterAll(() => mock.close());
beforeEach(() => {
  mock.reset();
  ({ project, home } = tempDirs());
  mkdirSync(project, { recursive: true });
});

const providers = {
  anthropic: { args: [], env: () => ({ ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: mock.anthropicBaseURL }) },
  openai: {
    args: ['--provider', 'openai'],
    env: () => ({ OPENAI_API_KEY: 'sk-openai-e2e-0123456789', OPENAI_BASE_URL: mock.openaiBaseURL }),
  },
};
type ProviderName = keyof typeof providers;

const options = (provider: ProviderName) => ({ cwd: project, env: { OUTRIDER_HOME: home, ...providers[provider].env() } });
const run = (provider: ProviderName, args: string[]) => runCli([...args, ...providers[provider].args], options(provider));

/**
 * Runs `-p prompt` with `replies` scripted and the request after them held open, then kills
 * the process with SIGKILL once that request arrived: the answer it waited for never comes.
 */
async function killedWhileWaiting(provider: ProviderName, prompt: string, replies: Reply[]): Promise<void> {
  mock.script(...replies, { fault: { kind: 'hang' } });
  const cli = startCli(['-p', prompt, ...providers[provider].args], options(provider));
  await until(() => mock.inFlight() === 1 && mock.requests.length === replies.length + 1, {
    what: 'the request whose answer the kill cuts off',
    observe: () => ({ requests: mock.requests.length, stderr: cli.stderr() }),
  });
  cli.signal('SIGKILL');
  expect(await cli.exited()).toEqual({ code: null, signal: 'SIGKILL' });
}

function transcriptFile(): string {
  const sessions = path.join(home, 'sessions');
  const [id, ...others] = readdirSync(sessions);
  expect(others).toEqual([]);
  return path.join(sessions, id!, 'transcript.jsonl');
}

/** The text a request's message carries, whatever the wire's shape of it. */
function texts(message: { content: unknown }): string[] {
  if (typeof message.content === 'string') return [message.content];
  return (message.content as { type: string; text?: string }[]).flatMap((b) => (b.type === 'text' ? [b.text!] : []));
}

describe.each(Object.keys(providers) as ProviderName[])('%s: --continue after kill -9', (provider) => {
  it('before the answer: the unanswered prompt and the new one are sent as one user message', async () => {
    await killedWhileWaiting(provider, 'first question', []);

    mock.script({ text: 'both answered' });
    const next = await run(provider, ['-c', '-p', 'next question']);
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('both answered\n');
    expect(next.code).toBe(0);
    const sent = mock.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(sent.map((m: { role: string }) => m.role)).toEqual(['user']);
    // Both, in order (a chat server gets one string: OpenAI's user message has no blocks).
    expect(texts(sent[0]).join('\n')).toMatch(/first question[^]*next question/);

    // The transcript keeps both prompts as written; the next run joins them again.
    mock.script({ text: 'third answered' });
    const third = await run(provider, ['-c', '-p', 'third question']);
    expect(third.stdout).toBe('third answered\n');
    const roles = mock.requests.at(-1)!.body.messages.flatMap((m: { role: string }) => (m.role === 'system' ? [] : [m.role]));
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it("after a tool's result: the new prompt joins the result's message", async () => {
    await killedWhileWaiting(provider, 'list the folder', [{ toolCalls: [{ name: 'list_dir', args: {} }] }]);

    mock.script({ text: 'resumed' });
    const next = await run(provider, ['-c', '-p', 'go on']);
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('resumed\n');
    expect(next.code).toBe(0);
    const sent = mock.requests.at(-1)!.body.messages.filter((m: { role: string }) => m.role !== 'system');
    const roles = sent.map((m: { role: string }) => m.role);
    expect(roles).toEqual(provider === 'anthropic' ? ['user', 'assistant', 'user'] : ['user', 'assistant', 'tool', 'user']);
    expect(texts(sent.at(-1))).toEqual(['go on']);
  });
});

it('a last line cut mid-write is skipped with a warning, and both prompts are sent', async () => {
  await killedWhileWaiting('anthropic', 'first question', []);
  // The kill landed while the answer's record was being written.
  appendFileSync(transcriptFile(), '{"type":"message","message":{"role":"assistant","content":[{"type":"te');
  const cut = readFileSync(transcriptFile(), 'utf8').split('\n').length;

  mock.script({ text: 'both answered' });
  const next = await run('anthropic', ['-c', '-p', 'next question']);
  expect(next.stderr).toBe(
    `outrider: line ${cut} was cut short (the program probably crashed while writing it); everything before it was restored\n`,
  );
  expect(next.stdout).toBe('both answered\n');
  const sent = mock.requests.at(-1)!.body.messages;
  expect(sent).toHaveLength(1);
  expect(texts(sent[0])).toEqual(['first question', 'next question']);
});
