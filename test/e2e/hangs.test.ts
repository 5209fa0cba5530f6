/** The built binary against servers that hang, refuse or ping forever; many model calls on one turn. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { refusedURL } from '../support/mock-provider.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { expectExited } from '../support/process.js';
import { runCli, startCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();

/** User plus system CPU time of a process, in clock ticks (Linux). */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function userSettings(settings: Record<string, unknown>): void {
  mkdirSync(t.home, { recursive: true });
  writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify(settings));
}

describe('model calls that never finish', () => {
  it('a server that never answers: retried after firstByteTimeoutMs, then a one-line error naming the setting', async () => {
    userSettings({ firstByteTimeoutMs: 300, maxRetries: 1 });
    t.mock.script({ fault: { kind: 'hang' } }, { fault: { kind: 'hang' } });
    const result = await runCli(['-p', 'hello'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/no response within 300 ms; retry 1\/1 in \d/),
      expect.stringMatching(
        /Anthropic failed after 1 retry: no response within 300 ms: if the server needs longer to start answering, raise firstByteTimeoutMs in settings\.$/,
      ),
    ]);
    // The retry is proven by the lines above. How many requests reached the mock is not: under
    // load a 300 ms first-byte timer can fire before the retried request's bytes arrive.
    expect(t.mock.requests.length).toBeGreaterThanOrEqual(1);
    expect(t.mock.requests.length).toBeLessThanOrEqual(2);
  });

  it('callDeadlineMs from the settings bounds the call, retries included, and the error names it', async () => {
    // Four retries of 300 ms each would outlast 500 ms: the deadline ends the call first.
    userSettings({ firstByteTimeoutMs: 300, maxRetries: 4, callDeadlineMs: 500 });
    t.mock.respond(() => ({ fault: { kind: 'hang' } }));
    const result = await runCli(['-p', 'hello'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(1);
    // Ended by the limit: the time left ran out, or the next backoff would have passed it.
    expect(result.stderr).toMatch(/^outrider: Anthropic.* gave up after .*\(callDeadlineMs/m);
    expect(t.mock.requests.length).toBeLessThan(5);
  });

  it('a server that only sends pings: retried after idleTimeoutMs', async () => {
    userSettings({ idleTimeoutMs: 300 });
    t.mock.script({ text: 'half an answer', fault: { kind: 'pings', afterChunks: 4 } }, { text: 'a whole answer' });
    const result = await runCli(['-p', 'hello'], { cwd: t.project, env: t.env });
    expect(result.stderr).toMatch(/no data for 300 ms; retry 1\/4 in/);
    expect(result.stdout).toBe('a whole answer\n');
    expect(result.code).toBe(0);
  });

  it('connection refused on localhost: one quick retry, then the error', async () => {
    const url = await refusedURL();
    const result = await runCli(['-p', 'hello'], { cwd: t.project, env: { ...t.env, ANTHROPIC_BASE_URL: url } });
    expect(result.code).toBe(1);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/connection refused by the base URL .*; retry 1\/1 in 0\.3s$/);
    expect(lines[1]).toMatch(
      /Anthropic failed after 1 retry: connection refused .*: check the base URL http:\/\/127\.0\.0\.1:\d+ \(set by --base-url, the baseURL setting or ANTHROPIC_BASE_URL\) and that the server there is running\.$/,
    );
  });
});

describe('many model calls in one turn', () => {
  it('OpenAI: twelve model calls print no MaxListenersExceededWarning', async () => {
    const calls = Array.from({ length: 11 }, () => ({ toolCalls: [{ name: 'list_dir', args: {} }] }));
    t.mock.script(...calls, { text: 'listed eleven times' });
    const env = { OUTRIDER_HOME: t.home, OPENAI_API_KEY: 'sk-openai-e2e-0123456789', OPENAI_BASE_URL: t.mock.openaiBaseURL };
    const result = await runCli(['-p', 'list the folder eleven times', '--provider', 'openai'], { cwd: t.project, env });
    expect(result.stderr).toBe('');
    expect(result.stdout).toBe('listed eleven times\n');
    expect(result.code).toBe(0);
    expect(t.mock.requests).toHaveLength(12);
  });
});

describe('the JavaScript grep in the built binary', () => {
  /** A PATH without rg, so grep searches in JavaScript. */
  const withoutRg = () => ({ ...t.env, PATH: t.project });

  it('finds its worker beside the bundle and searches', async () => {
    writeFileSync(path.join(t.project, 'notes.txt'), 'alpha\nneedle here\n');
    t.mock.script({ toolCalls: [{ name: 'grep', args: { pattern: 'needle' } }] }, { text: 'found it' });
    const result = await runCli(['-p', 'find the needle'], { cwd: t.project, env: withoutRg() });
    // Without rg on PATH there is no bwrap either: its one warning is expected, nothing else.
    expect(result.stderr.split('\n').filter((line) => line && !line.includes('no OS sandbox'))).toEqual([]);
    expect(result.code).toBe(0);
    const toolResult = t.mock.requests[1]!.body.messages.at(-1).content[0];
    expect(toolResult).toMatchObject({ type: 'tool_result', content: 'notes.txt:2:needle here' });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops a runaway regex: the binary exits, interrupted', async (signal) => {
    writeFileSync(path.join(t.project, 'evil.txt'), `${'a'.repeat(40)}!\n`);
    t.mock.script({ toolCalls: [{ name: 'grep', args: { pattern: '(a+)+$' } }] }, { text: 'must not be asked' });
    const cli = startCli(['-p', 'grep', '--output-format', 'events-json'], { cwd: t.project, env: withoutRg() });
    await until(() => cli.stdout().includes('"type":"tool_start"'), { what: 'the grep to start' });
    // Signal it while the regex really spins: a quarter second of CPU on top of what the start used.
    if (existsSync(`/proc/${cli.pid}/stat`)) {
      const start = cpuTicks(cli.pid);
      await until(() => cpuTicks(cli.pid) - start >= 25, { what: 'the regex to burn CPU' });
    }
    cli.signal(signal);
    const { code } = await cli.exited();
    expect(code).toBe(1);
    const last = JSON.parse(cli.stdout().trim().split('\n').at(-1)!);
    expect(last).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(t.mock.requests).toHaveLength(1);
  });
});

describe('headless signals', () => {
  const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
  const lines = (stdout: string) =>
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it.each(['SIGTERM', 'SIGHUP'] as const)(
    '%s while waiting for a sub-agent that hangs: exits 1 as interrupted',
    async (signal) => {
      t.mock.respond((request): Reply => {
        if (isChild(request)) return { fault: { kind: 'hang' } };
        if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'Look around' } }] };
        return { text: 'Started a sub-agent; waiting for it.' };
      });
      const cli = startCli(['-p', 'delegate', '--output-format', 'events-json'], { cwd: t.project, env: t.env });
      // The parent's run is over and the child's request is held: headless now waits for the job.
      await until(() => cli.stdout().includes('"type":"run_end"') && t.mock.requests.some(isChild), {
        what: 'the wait for the sub-agent',
      });
      cli.signal(signal);
      const { code } = await cli.exited();
      expect(code).toBe(1);
      const result = lines(cli.stdout()).at(-1)!;
      expect(result).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, error: 'interrupted' });
      expect(result.jobs).toEqual([expect.objectContaining({ id: 'sub-1', status: 'aborted' })]);
      expect(cli.stderr()).toMatch(/interrupted/);
    },
  );

  it('SIGHUP while a command runs stops the command and exits', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'sleep 300 & echo $! > sleep.pid; wait' } }] },
      { text: 'must not be asked' },
    );
    const cli = startCli(['-p', 'run it', '--yolo', '--output-format', 'events-json'], { cwd: t.project, env: t.env });
    const pidFile = path.join(t.project, 'sleep.pid');
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), { what: 'the command to start' });
    const sleepPid = Number(readFileSync(pidFile, 'utf8'));
    cli.signal('SIGHUP');
    const { code } = await cli.exited();
    expect(code).toBe(1);
    expect(lines(cli.stdout()).at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution' });
    await expectExited(sleepPid);
  });
});
