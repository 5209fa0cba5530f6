/**
 * `--continue` after `kill -9`, through the built binary, against a mock that refuses what the
 * strictest provider refuses (roles that do not alternate, a call without its result): the
 * prompt the kill left unanswered and the new one go out as one user message, both kept; and
 * sub-agents the kill cut off come back interrupted, named once to the model, resumable.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../support/mock-provider.js';
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

describe('--continue after kill -9 while sub-agents run', () => {
  const gitEnv = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' };
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: project, encoding: 'utf8', env: { ...process.env, ...gitEnv } });
  const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
  /** The child request of JOB n (its task names it). */
  const isJob = (n: number) => (r: RecordedRequest) => isChild(r) && JSON.stringify(r.body.messages[0]).includes(`JOB ${n}`);
  const parents = () => mock.requests.filter((r) => !isChild(r));
  const INTERRUPTED_NOTICE = /Interrupted: the session ended/g;

  it('lists both as interrupted, commits the worktree job’s file to its branch, names them in one notice, and agent_send resumes one with its history', async () => {
    git('init', '-q', '-b', 'main');
    writeFileSync(path.join(project, 'a.txt'), 'original\n');
    writeFileSync(path.join(project, '.gitignore'), '*.pid\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'first');
    const pidFile = path.join(project, 'job1.pid');
    let shellGroup: number | undefined;
    try {
      // Run 1: JOB 1 runs a command that outlives the kill, JOB 2 writes notes.txt in its worktree, then both wait.
      mock.respond((request): Reply => {
        const sent = request.body.messages.length;
        if (isJob(1)(request) && sent === 1) {
          return {
            text: 'Running the slow check first.',
            toolCalls: [{ name: 'bash', args: { command: 'echo $$ > job1.pid; sleep 300' } }],
          };
        }
        if (isJob(2)(request) && sent === 1) {
          return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'what JOB 2 found\n' } }] };
        }
        if (!isChild(request) && sent === 1) {
          return {
            toolCalls: [
              { name: 'agent_start', args: { task: 'JOB 1: run the slow check', agent: 'general' } },
              { name: 'agent_start', args: { task: 'JOB 2: write notes.txt', agent: 'general', isolation: 'worktree' } },
            ],
          };
        }
        return { fault: { kind: 'hang' } };
      });
      const cli = startCli(['-p', 'start both', '--yolo'], options('anthropic'));
      await until(
        () =>
          existsSync(pidFile) &&
          readFileSync(pidFile, 'utf8').endsWith('\n') &&
          mock.requests.filter(isJob(2)).length === 2 &&
          mock.inFlight((r) => !isChild(r)) === 1,
        {
          what: "JOB 1's command running, JOB 2 past its write, the parent waiting on the model",
          observe: () => ({ requests: mock.requests.length, stderr: cli.stderr() }),
        },
      );
      shellGroup = Number(readFileSync(pidFile, 'utf8'));
      cli.signal('SIGKILL');
      expect(await cli.exited()).toEqual({ code: null, signal: 'SIGKILL' });
      const before = mock.requests.length;

      // Run 2: --continue. The model resumes JOB 1 with agent_send, then hears it completed.
      let parentStep = 0;
      mock.respond((request): Reply => {
        if (isChild(request)) return { text: 'JOB 1 finished after all' };
        parentStep += 1;
        if (parentStep === 1)
          return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'go on from where you were' } }] };
        return { text: parentStep === 2 ? 'resumed it' : 'all done' };
      });
      const next = await runCli(['-c', '-p', 'what happened?', '--yolo', '--output-format', 'json'], options('anthropic'));
      expect(next.stderr).toBe('');
      expect(next.code).toBe(0);
      const result = JSON.parse(next.stdout);
      expect(result.result).toBe('all done');
      expect(result.jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
        ['sub-1', 'done'],
        ['sub-2', 'error'],
      ]);
      // The JSON result says which ended with the session, and why.
      expect(result.jobs[1]).toMatchObject({
        interrupted: true,
        error: expect.stringMatching(/^interrupted \(the session ended\)/),
      });

      // The worktree job's file, never committed by it, is on its branch.
      const branch = git('for-each-ref', '--format=%(refname:short)', 'refs/heads/outrider').trim();
      expect(branch).toMatch(/^outrider\/[^/]+\/sub-2$/);
      expect(git('show', `${branch}:notes.txt`)).toBe('what JOB 2 found\n');
      expect(git('log', '-1', '--format=%s', branch)).toMatch(/^sub-2: salvaged after the session ended/);

      // The first request of run 2: one notice, both jobs named interrupted, with what each had done.
      const resumedParents = parents().filter((r) => mock.requests.indexOf(r) >= before);
      const first = JSON.stringify(resumedParents[0]!.body.messages);
      expect(first.match(INTERRUPTED_NOTICE)).toHaveLength(1);
      expect(first).toContain('before sub-1 and sub-2 finished');
      expect(first).toContain('- sub-1 (general): 1 turn, 1 tool call; last text: \\"Running the slow check first.\\"');
      expect(first).toContain(
        `- sub-2 (general): 1 turn, 1 tool call; salvaged: 1 file (notes.txt) committed to branch ${branch}`,
      );
      expect(first).toContain('what happened?');
      // Named once: the later requests carry the same one notice in their history, and no other.
      for (const later of resumedParents.slice(1))
        expect(JSON.stringify(later.body.messages).match(INTERRUPTED_NOTICE)).toHaveLength(1);

      // JOB 1 went on with its history: its task, the command the kill cut (answered as interrupted), the message.
      const resumed = mock.requests.slice(before).filter(isJob(1));
      expect(resumed).toHaveLength(1);
      const history = JSON.stringify(resumed[0]!.body.messages);
      expect(history).toContain('Running the slow check first.');
      expect(history).toContain('echo $$ > job1.pid; sleep 300');
      expect(history).toContain('Interrupted: outrider stopped before this tool finished');
      expect(history).toContain('Message from the parent agent:\\ngo on from where you were');
      expect(JSON.stringify(resumedParents.at(-1)!.body.messages)).toContain('Sub-agent sub-1 completed.');
    } finally {
      // The command the kill orphaned: its whole group.
      if (shellGroup !== undefined && shellGroup > 1) {
        for (const target of [-shellGroup, shellGroup]) {
          try {
            process.kill(target, 'SIGKILL');
          } catch {
            // Already gone, or not a group leader.
          }
        }
      }
    }
  });
  it('a closed terminal (SIGHUP) while a sub-agent runs: the next --continue names it interrupted, once', async () => {
    mock.respond((request): Reply => {
      if (isChild(request)) return { fault: { kind: 'hang' } };
      return request.body.messages.length === 1
        ? { toolCalls: [{ name: 'agent_start', args: { task: 'JOB 3: read everything' } }] }
        : { text: 'started it' };
    });
    const cli = startCli(['-p', 'start it'], options('anthropic'));
    // The parent's turn is over and headless waits for the job, whose request hangs.
    await until(() => mock.inFlight(isChild) === 1 && parents().length === 2 && parents()[1]!.answeredAt !== undefined, {
      what: 'headless waiting for the sub-agent',
      observe: () => ({ requests: mock.requests.length, stderr: cli.stderr() }),
    });
    cli.signal('SIGHUP');
    expect((await cli.exited()).code).toBe(1);
    const before = mock.requests.length;

    mock.respond((): Reply => ({ text: 'understood' }));
    const next = await runCli(['-c', '-p', 'and now?'], options('anthropic'));
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('understood\n');
    const sent = mock.requests.slice(before);
    expect(sent).toHaveLength(1);
    const history = JSON.stringify(sent[0]!.body.messages);
    expect(history.match(INTERRUPTED_NOTICE)).toHaveLength(1);
    expect(history).toMatch(
      /before sub-1 finished\. What it had done:\\n- sub-1 \(explore\): \d+ turns?, 0 tool calls; no text yet/,
    );

    // Told once: the run after says nothing more of it.
    mock.respond((): Reply => ({ text: 'still fine' }));
    const third = await runCli(['-c', '-p', 'anything else?'], options('anthropic'));
    expect(third.stdout).toBe('still fine\n');
    expect(JSON.stringify(mock.requests.at(-1)!.body.messages).match(INTERRUPTED_NOTICE)).toHaveLength(1);
  });
});
