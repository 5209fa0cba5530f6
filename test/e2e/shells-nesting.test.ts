import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { expectExited } from '../support/process.js';
import { runCli } from '../support/run-cli.js';
import { until } from '../support/until.js';

const t = useMockProject();

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const lastMessage = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1));
const jsonLines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('background shells end to end', () => {
  it('a background shell polled twice (each poll its new output) and stopped: its process is gone', async () => {
    const command = 'echo $$ > shell.pid; echo first; until [ -e go ]; do sleep 0.05; done; echo second; sleep 300';
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'bash', args: { command, run_in_background: true } }] };
      if (last.includes('Started background shell sh-1')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
      if (last.includes('first') && last.includes('still running')) {
        // The second poll can only see "second" after this file exists.
        writeFileSync(path.join(t.project, 'go'), '');
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
      }
      if (last.includes('second')) return { toolCalls: [{ name: 'agent_stop', args: { id: 'sh-1' } }] };
      if (last.includes('Stopped sh-1.')) return { text: 'stopped the shell' };
      return { text: `unexpected: ${last.slice(0, 200)}` };
    });
    const result = await runCli(['-p', 'run it in the background', '--yolo', '--output-format', 'events-json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const polls = lines.filter((l) => l.type === 'tool_end' && l.name === 'agent_poll').map((l) => l.content);
    expect(polls).toEqual([
      expect.stringMatching(/^first\n\n\[sh-1 still running after \d+s; poll again/),
      expect.stringMatching(/^second\n\n\[sh-1 still running/),
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'stopped the shell' });
    expect(lines.at(-1).jobs).toEqual([expect.objectContaining({ id: 'sh-1', status: 'aborted', definition: 'shell' })]);
    const pid = Number(readFileSync(path.join(t.project, 'shell.pid'), 'utf8'));
    await expectExited(pid);
  });
});

describe('writing to a background shell end to end (agent_send)', () => {
  it("agent_send writes a line to sh-1's stdin, which it reads; once it exited a message is refused", async () => {
    const command = 'read -r name; echo "hello $name"';
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'bash', args: { command, run_in_background: true } }] };
      if (last.includes('Started background shell sh-1'))
        return { toolCalls: [{ name: 'agent_send', args: { id: 'sh-1', message: 'outrider' } }] };
      if (last.includes("Wrote to sh-1's stdin.")) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
      if (last.includes('hello outrider') && !last.includes('exited with code 0'))
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
      if (last.includes('exited with code 0') && !last.includes('reads no more input'))
        return { toolCalls: [{ name: 'agent_send', args: { id: 'sh-1', message: 'again' } }] };
      if (last.includes('reads no more input')) return { text: 'it greeted me' };
      // An exit notice, or a poll that waited with nothing new: ask again.
      return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
    });
    const result = await runCli(['-p', 'greet', '--yolo', '--output-format', 'events-json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const sends = lines.filter((l) => l.type === 'tool_end' && l.name === 'agent_send').map((l) => [l.content, l.isError]);
    expect(sends).toEqual([
      ["Wrote to sh-1's stdin.", false],
      ['sh-1 exited with code 0: it reads no more input. Start a new shell with bash run_in_background.', true],
    ]);
    const polls = lines.filter((l) => l.type === 'tool_end' && l.name === 'agent_poll').map((l) => l.content);
    expect(polls.join('\n')).toContain('hello outrider');
    expect(lines.at(-1)).toMatchObject({ type: 'result', result: 'it greeted me' });
    expect(lines.at(-1).jobs).toEqual([expect.objectContaining({ id: 'sh-1', status: 'done' })]);
  });
});

describe('nesting end to end (agents.maxAgentDepth)', () => {
  it('a nested job sub-1.1 is stopped with its parent sub-1', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify({ agents: { maxAgentDepth: 2 } }));
    t.mock.respond(async (request): Promise<Reply> => {
      const first = JSON.stringify(request.body.messages[0]);
      if (isChild(request) && first.includes('inner task')) return { fault: { kind: 'hang' } };
      if (isChild(request)) {
        if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'inner task' } }] };
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
      }
      const last = lastMessage(request);
      if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'outer task' } }] };
      if (last.includes('Sub-agent sub-1 started')) {
        // Stop the outer job once the inner one's request is in flight.
        await until(() => t.mock.requests.some((r) => isChild(r) && JSON.stringify(r.body.messages[0]).includes('inner task')), {
          what: "sub-1.1's request",
        });
        return { toolCalls: [{ name: 'agent_stop', args: { id: 'sub-1' } }] };
      }
      return { text: 'stopped the tree' };
    });
    const result = await runCli(['-p', 'nest', '--output-format', 'events-json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = jsonLines(result.stdout);
    const aborted = lines.filter((l) => l.type === 'job_state' && l.job.state === 'aborted').map((l) => l.job.id);
    expect(aborted).toEqual(['sub-1.1', 'sub-1']);
    expect(lines.at(-1).jobs.map((j: { id: string; status: string }) => [j.id, j.status])).toEqual([
      ['sub-1', 'aborted'],
      ['sub-1.1', 'aborted'],
    ]);
    // The inner request was left by its client when the job stopped.
    const inner = t.mock.requests.find((r) => isChild(r) && JSON.stringify(r.body.messages[0]).includes('inner task'))!;
    await until(() => inner.answeredAt !== undefined, { what: 'the inner request to be closed' });
  });
});

describe('--continue end to end: shells and nested jobs of the earlier run', () => {
  it('the earlier sh-1 and sub-1.1 are listed; a new shell is sh-2; sub-1.1 resumes with its history; sh-1 refuses a message', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(path.join(t.home, 'settings.json'), JSON.stringify({ agents: { maxAgentDepth: 2 } }));
    t.mock.respond((request): Reply => {
      const first = JSON.stringify(request.body.messages[0]);
      const last = lastMessage(request);
      if (isChild(request)) {
        if (first.includes('inner task')) return { text: last.includes('and once more') ? 'inner again' : 'inner first' };
        if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'inner task' } }] };
        if (last.includes('Sub-agent sub-1.1 started')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
        return { text: 'outer done' };
      }
      if (last.includes('first run'))
        return {
          toolCalls: [
            { name: 'bash', args: { command: 'echo one', run_in_background: true } },
            { name: 'agent_start', args: { task: 'outer task' } },
          ],
        };
      if (last.includes('second run'))
        return {
          toolCalls: [
            { name: 'bash', args: { command: 'echo two', run_in_background: true } },
            { name: 'agent_send', args: { id: 'sub-1.1', message: 'and once more' } },
            { name: 'agent_send', args: { id: 'sh-1', message: 'hello' } },
          ],
        };
      if (last.includes('Sub-agent sub-1.1 resumed')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1.1' } }] };
      // The first run waits for sh-1 to exit, so it is not stopped with the run.
      if (last.includes('Started background shell sh-1') || last.includes('sh-1 still running'))
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sh-1' } }] };
      return { text: 'ok' };
    });
    const first = await runCli(['-p', 'first run', '--yolo', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(first.stderr).toBe('');
    expect(JSON.parse(first.stdout).jobs.map((j: { id: string; status: string }) => `${j.id}:${j.status}`)).toEqual([
      'sub-1:done',
      'sub-1.1:done',
      'sh-1:done',
    ]);
    const before = t.mock.requests.length;

    const second = await runCli(['-p', 'second run', '--continue', '--yolo', '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(second.stderr).toBe('');
    expect(second.code).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary.jobs.map((j: { id: string; status: string; task: string }) => `${j.id}:${j.status}:${j.task}`)).toEqual([
      'sub-1:done:outer task',
      'sub-1.1:done:inner task',
      'sh-1:done:echo one',
      expect.stringMatching(/^sh-2:(running|done|aborted):echo two$/),
    ]);
    const parent = t.mock.requests.slice(before).filter((r) => !isChild(r));
    const results = lastMessage(parent[1]!);
    expect(results).toContain('Started background shell sh-2');
    expect(results).toContain('Sub-agent sub-1.1 resumed with your message');
    expect(results).toContain('sh-1 is from an earlier run of this session and exited with code 0; a shell cannot be resumed');
    // sub-1.1 went on from its own conversation, over the wire.
    const resumed = t.mock.requests.slice(before).find(isChild)!.body.messages;
    expect(JSON.stringify(resumed[0])).toContain('inner task');
    expect(JSON.stringify(resumed)).toContain('inner first');
    expect(JSON.stringify(resumed.at(-1))).toContain('and once more');
    // The parent's poll returned its new answer.
    expect(JSON.stringify(parent.at(-1)!.body.messages)).toContain('"content":"inner again"');
  });
});

describe('sub-agent models end to end', () => {
  it("a definition's alias goes over the wire as the provider's id; a model it cannot serve runs on the parent's, with one warning", async () => {
    mkdirSync(path.join(t.home, 'agents'), { recursive: true });
    writeFileSync(
      path.join(t.home, 'agents', 'quick.md'),
      '---\nname: quick\ndescription: Fast helper.\nmodel: haiku\n---\nYou help.\n',
    );
    t.mock.respond((request): Reply => {
      if (isChild(request)) return { text: 'child report', usage: { input: 1_000_000, output: 0 } };
      if (request.body.messages.length === 1) {
        return {
          toolCalls: [
            { name: 'agent_start', args: { task: 'first', agent: 'quick' } },
            { name: 'agent_start', args: { task: 'second', model: 'gpt-5' } },
          ],
        };
      }
      return { text: 'done' };
    });
    const result = await runCli(['-p', 'two helpers', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    const children = t.mock.requests.filter(isChild);
    const modelOf = (task: string) => children.find((r) => JSON.stringify(r.body.messages[0]).includes(task))!.body.model;
    expect(modelOf('first')).toBe('claude-haiku-5-5');
    expect(modelOf('second')).toBe(t.mock.requests[0]!.body.model);
    const summary = JSON.parse(result.stdout);
    const [first, second] = summary.jobs;
    expect(first).toMatchObject({ id: 'sub-1', model: 'claude-haiku-5-5' });
    // Each job at its own model's prices: a million input tokens of Haiku 5.5 cost $0.10.
    expect(first.cost_usd).toBeCloseTo(0.1, 2);
    expect(second.cost_usd).toBeGreaterThan(first.cost_usd * 10);
    expect(result.stderr.split('\n').filter((line) => line.includes('"gpt-5" is not served'))).toHaveLength(1);
  });
});
