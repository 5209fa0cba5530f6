import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { type Barrier, barrier } from '../support/barrier.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
beforeEach(() => {
  mkdirSync(path.join(t.project, 'src'), { recursive: true });
  for (const area of ['auth', 'billing', 'search', 'storage']) {
    writeFileSync(
      path.join(t.project, 'src', `${area}.ts`),
      `export function ${area}() { throw new Error('${area} failed'); }\n`,
    );
  }
});

const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
const childTask = (r: RecordedRequest) => JSON.stringify(r.body.messages[0].content);
const lastMessage = (r: RecordedRequest) => JSON.stringify(r.body.messages.at(-1));

/**
 * A parent that starts one child per area in ONE response, then answers from the notice and
 * polls. Each child's first request waits at `gate` (when given) until all of them are in flight.
 */
function scriptedRun(areas: string[], gate?: Barrier) {
  t.mock.respond(async (request): Promise<Reply> => {
    if (isChild(request)) {
      const area = areas.find((a) => childTask(request).includes(`src/${a}.ts`))!;
      if (request.body.messages.length === 1) {
        await gate?.arrive();
        return { toolCalls: [{ name: 'read_file', args: { path: `src/${area}.ts` } }] };
      }
      return { text: `${area}: throws Error('${area} failed')` };
    }
    const last = lastMessage(request);
    if (request.body.messages.length === 1) {
      return { toolCalls: areas.map((a) => ({ name: 'agent_start', args: { task: `How does src/${a}.ts handle errors?` } })) };
    }
    if (last.includes('completed. Call agent_poll')) {
      const ids = [...last.matchAll(/sub-\d+/g)].map((m) => m[0]);
      return { toolCalls: [...new Set(ids)].map((id) => ({ name: 'agent_poll', args: { id } })) };
    }
    if (last.includes('tool_result') && last.includes('failed')) {
      const reports = request.body.messages
        .flatMap((m: { content: unknown }) => (Array.isArray(m.content) ? m.content : []))
        .filter((b: { type: string }) => b.type === 'tool_result')
        .map((b: { content: unknown }) => JSON.stringify(b.content))
        .filter((t: string) => t.includes('throws'));
      return { text: `Compared ${reports.length} reports.` };
    }
    return { text: 'Started the sub-agents; waiting for their reports.' };
  });
}

describe('headless sub-agents end to end', () => {
  it('runs three children in parallel, streams their events, and answers with every report', async () => {
    const gate = barrier(3, { what: 'first child requests' });
    scriptedRun(['auth', 'billing', 'search'], gate);
    const result = await runCli(
      ['-p', 'Investigate how auth, billing and search each handle errors; compare them', '--output-format', 'events-json'],
      { cwd: t.project, env: t.env },
    );
    gate.assertOpened();
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const starts = lines.filter((l) => l.type === 'tool_end' && l.name === 'agent_start').map((l) => l.content);
    expect(starts).toEqual([
      expect.stringMatching(/^Sub-agent sub-1 started/),
      expect.stringMatching(/^Sub-agent sub-2 started/),
      expect.stringMatching(/^Sub-agent sub-3 started/),
    ]);
    // Ids follow the order the model wrote the calls in.
    const firstChildRequests = t.mock.requests.filter((r) => isChild(r) && r.body.messages.length === 1);
    expect(firstChildRequests).toHaveLength(3);
    const jobStates = lines.filter((l) => l.type === 'job_state').map((l) => `${l.job.id}:${l.job.state}`);
    // One stream: turn and job events numbered in the order they happened.
    const seqs = lines.filter((l) => l.type !== 'system' && l.type !== 'result').map((l) => l.seq);
    expect(seqs).toEqual(seqs.map((_: number, i: number) => i + 1));
    for (const id of ['sub-1', 'sub-2', 'sub-3']) {
      expect(jobStates).toEqual(expect.arrayContaining([`${id}:queued`, `${id}:running`, `${id}:done`]));
    }
    const childEvents = lines.filter((l) => l.type === 'job_event');
    expect(new Set(childEvents.map((l) => l.jobId))).toEqual(new Set(['sub-1', 'sub-2', 'sub-3']));
    expect(childEvents.some((l) => l.event.type === 'tool_start' && l.event.name === 'read_file')).toBe(true);
    expect(childEvents.some((l) => l.event.type === 'usage')).toBe(true);
    const final = lines.at(-1);
    expect(final).toMatchObject({ type: 'result', result: 'Compared 3 reports.' });
    expect(final.jobs.map((j: { id: string; status: string }) => `${j.id}:${j.status}`)).toEqual([
      'sub-1:done',
      'sub-2:done',
      'sub-3:done',
    ]);
    expect(final.jobs[0]).toMatchObject({ definition: 'explore', turns: 2, tool_calls: 1 });
  });

  it('--no-wait-agents exits after the parent turn without waiting', async () => {
    scriptedRun(['auth']);
    const result = await runCli(['-p', 'check auth', '--no-wait-agents', '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result).toBe('Started the sub-agents; waiting for their reports.');
  });

  it('four children run in parallel: all four first requests are in flight at once', async () => {
    // No clock: no child is answered until all four wait, so the run can only finish if
    // the four ran together (a serial run would hold the first child until the deadline).
    const gate = barrier(4, { what: 'first child requests' });
    scriptedRun(['auth', 'billing', 'search', 'storage'], gate);
    // Four in one turn: agents.approve allows them (headless would refuse the fourth under the default over:3).
    const approve = ['--settings', '{"agents":{"approve":"over:4"}}'];
    const result = await runCli(['-p', 'compare all four', '--output-format', 'json', '--max-agents', '4', ...approve], {
      cwd: t.project,
      env: t.env,
    });
    gate.assertOpened();
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result).toBe('Compared 4 reports.');
    expect(t.mock.maxInFlight(isChild)).toBe(4);
    expect(t.mock.requests.filter(isChild)).toHaveLength(8);
  });

  it('a fork replays the parent request byte for byte and appends only its task', async () => {
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      if (JSON.stringify(request.body.messages).includes('forked sub-agent')) return { text: 'fork report' };
      if (request.body.messages.length === 1) {
        return { toolCalls: [{ name: 'agent_start', args: { task: 'Summarise what we discussed', mode: 'fork' } }] };
      }
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('fork report')) return { text: 'The fork reported back.' };
      return { text: 'Forked; waiting.' };
    });
    const result = await runCli(['-p', 'fork a helper', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).result).toBe('The fork reported back.');
    const strip = (value: unknown) => JSON.parse(JSON.stringify(value), (k, v) => (k === 'cache_control' ? undefined : v));
    const parent = t.mock.requests[0]!.body;
    const fork = t.mock.requests.find((r) => JSON.stringify(r.body.messages).includes('forked sub-agent'))!.body;
    // The cacheable prefix: same system and tools to the byte, and the parent's messages first.
    expect(JSON.stringify(fork.system)).toBe(JSON.stringify(parent.system));
    expect(JSON.stringify(fork.tools)).toBe(JSON.stringify(parent.tools));
    const parentSecond = strip(t.mock.requests[1]!.body.messages);
    expect(strip(fork.messages.slice(0, 2))).toEqual(parentSecond.slice(0, 2));
    expect(fork.messages).toHaveLength(3);
    expect(JSON.stringify(fork.messages[2])).toContain('Summarise what we discussed');
  });

  it('agent_send: a running child reads the message at its next step; a finished one resumes with its history', async () => {
    let markSent = () => {};
    const sent = new Promise<void>((resolve) => (markSent = resolve));
    t.mock.respond(async (request): Promise<Reply> => {
      const all = JSON.stringify(request.body.messages);
      const last = lastMessage(request);
      if (isChild(request)) {
        if (all.includes('now billing')) return { text: 'billing: throws BillingError' };
        if (request.body.messages.length === 1) {
          // Held until the parent has sent its message, so it is waiting when the child's step ends.
          await sent;
          return { toolCalls: [{ name: 'read_file', args: { path: 'src/auth.ts' } }] };
        }
        return { text: all.includes('also mention the error class') ? 'auth: throws Error, as asked' : 'auth: throws' };
      }
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'How does src/auth.ts fail?' } }] };
      if (last.includes('Sub-agent sub-1 started'))
        return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'also mention the error class' } }] };
      if (last.includes('it reads it at its next step')) {
        markSent();
        return { text: 'Waiting.' };
      }
      if (last.includes('resumed with your message')) return { text: 'Waiting again.' };
      if (last.includes('completed. Call agent_poll') && !all.includes('resumed with your message')) {
        return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'now billing' } }] };
      }
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('billing: throws BillingError')) return { text: 'Both done.' };
      return { text: `unexpected: ${last.slice(0, 200)}` };
    });
    const result = await runCli(['-p', 'investigate', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ result: 'Both done.', jobs: [{ id: 'sub-1', status: 'done' }] });
    const child = t.mock.requests.filter(isChild);
    // The message joined after the tool results of the step it arrived in, never mid-call: in the
    // request, one user message (the turns alternate), the results first.
    const second = child[1]!.body.messages;
    expect(second).toHaveLength(3);
    const joined = JSON.stringify(second[2]);
    expect(joined.indexOf('tool_result')).toBeGreaterThanOrEqual(0);
    expect(joined.indexOf('Message from the parent agent:\\nalso mention the error class')).toBeGreaterThan(
      joined.indexOf('tool_result'),
    );
    // Resumed: its whole history, then the new message, under the same id.
    const resumed = child[2]!.body.messages;
    expect(JSON.stringify(resumed.at(-2))).toContain('auth: throws Error, as asked');
    expect(JSON.stringify(resumed.at(-1))).toContain('now billing');
    expect(JSON.stringify(resumed[0])).toContain('How does src/auth.ts fail?');
  });

  it('agent_send reaches a job from before --continue', async () => {
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      if (isChild(request))
        return { text: JSON.stringify(request.body.messages).includes('one more question') ? 'second answer' : 'first answer' };
      if (last.includes('first run')) return { toolCalls: [{ name: 'agent_start', args: { task: 'Read src/search.ts' } }] };
      if (last.includes('second run'))
        return { toolCalls: [{ name: 'agent_send', args: { id: 'sub-1', message: 'one more question' } }] };
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('second answer')) return { text: 'Got the second answer.' };
      if (last.includes('first answer')) return { text: 'Got the first answer.' };
      return { text: 'Waiting.' };
    });
    const first = await runCli(['-p', 'first run', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(JSON.parse(first.stdout).result).toBe('Got the first answer.');
    const second = await runCli(['-p', 'second run', '--continue', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(second.stderr).toBe('');
    expect(JSON.parse(second.stdout)).toMatchObject({
      result: 'Got the second answer.',
      jobs: [{ id: 'sub-1', status: 'done' }],
    });
    const resumed = t.mock.requests.filter(isChild).at(-1)!.body.messages;
    expect(JSON.stringify(resumed[0])).toContain('Read src/search.ts');
    expect(JSON.stringify(resumed)).toContain('first answer');
  });

  it('158 agent files keep the first request small, and agent_list finds the rest', async () => {
    const dir = path.join(t.project, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < 158; i++) {
      const topic = i === 150 ? 'terraform state surgery' : `topic ${i}`;
      writeFileSync(
        path.join(dir, `expert-${i}.md`),
        `---\nname: expert-${i}\ndescription: Expert in ${topic}. ${'Use it for deep questions about this area, with examples and long context. '.repeat(4)}\ntools: Read, Grep\n---\nYou are expert ${i}.\n`,
      );
    }
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_list', args: { query: 'terraform' } }] };
      if (last.includes('expert-150')) return { text: 'Found expert-150.' };
      return { text: `unexpected: ${last.slice(0, 300)}` };
    });
    const result = await runCli(['-p', 'who knows terraform?', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout).result).toBe('Found expert-150.');
    const first = t.mock.requests[0]!.body;
    const bytes = Buffer.byteLength(JSON.stringify(first.system)) + Buffer.byteLength(JSON.stringify(first.tools));
    expect(bytes).toBeLessThan(12 * 1024);
    const listResult = JSON.stringify(t.mock.requests[1]!.body.messages.at(-1));
    expect(listResult).toContain('Expert in terraform state surgery');
  });

  it('a job whose next call could pass its cost cap ends failed with the cap named, and the call is never made', async () => {
    t.mock.respond((request): Reply => {
      const last = lastMessage(request);
      // Each child step costs about $0.10 at the default model's prices ($2 per million input tokens); the worst
      // case of the next one (its input and 8,192 tokens of output at $10 a million) is about $0.09.
      if (isChild(request)) return { toolCalls: [{ name: 'list_dir', args: {} }], usage: { input: 50_000, output: 10 } };
      if (request.body.messages.length === 1) {
        return { toolCalls: [{ name: 'agent_start', args: { task: 'keep listing', max_cost_usd: 0.25 } }] };
      }
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('budget: cost reached')) return { text: 'It ran out of budget.' };
      return { text: 'Started.' };
    });
    const result = await runCli(['-p', 'go', '--output-format', 'json'], { cwd: t.project, env: t.env });
    expect(result.stderr).toBe('');
    const out = JSON.parse(result.stdout);
    expect(out.result).toBe('It ran out of budget.');
    expect(out.jobs).toMatchObject([{ id: 'sub-1', status: 'error', tool_calls: 2 }]);
    // Two calls made, $0.20 spent: the third, which could have cost $0.09 more, was refused, so the cap was never passed.
    expect(out.jobs[0].cost_usd).toBeCloseTo(0.2002, 4);
    const poll = JSON.stringify(t.mock.requests.at(-1)!.body.messages.at(-1));
    expect(poll).toMatch(
      /sub-agent sub-1 failed: budget: cost reached \(the next call, up to \$0\.0[89]\d+, would pass the cap of \$0\.2500 by \$0\.0[34]\d+; \$0\.2002 used\)/,
    );
    expect(t.mock.requests.filter(isChild)).toHaveLength(2);
  });

  it('--max-budget-usd: once the session has cost that much, no new sub-agent starts, and the refusal names the flag', async () => {
    t.mock.respond((request): Reply => {
      // The parent's first reply alone costs about $0.03.
      if (request.body.messages.length === 1) {
        return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }], usage: { input: 10_000, output: 10 } };
      }
      return { text: 'Could not start it.' };
    });
    const result = await runCli(['-p', 'go', '--output-format', 'json', '--max-budget-usd', '0.01'], {
      cwd: t.project,
      env: t.env,
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ result: 'Could not start it.', jobs: [] });
    const refusal = JSON.stringify(t.mock.requests[1]!.body.messages.at(-1));
    expect(refusal).toContain('the session budget of $0.0100 is spent');
    expect(refusal).toContain('--max-budget-usd');
    expect(t.mock.requests.filter(isChild)).toHaveLength(0);
  });

  it("--agents defines an agent for one run, in Claude Code's format; bad JSON is one line and exit 2", async () => {
    t.mock.respond((request): Reply => {
      if (isChild(request)) return { text: 'reviewed' };
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'review src/auth.ts', agent: 'reviewer' } }] };
      if (lastMessage(request).includes('completed. Call agent_poll'))
        return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (lastMessage(request).includes('reviewed')) return { text: 'Review done.' };
      return { text: 'Waiting.' };
    });
    const agents = JSON.stringify({
      reviewer: { description: 'Reviews code for bugs.', prompt: 'You are a strict reviewer.', tools: ['Read'] },
    });
    const result = await runCli(['-p', 'review it', '--agents', agents, '--output-format', 'json'], {
      cwd: t.project,
      env: t.env,
    });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toMatchObject({ result: 'Review done.', jobs: [{ id: 'sub-1', definition: 'reviewer' }] });
    const child = t.mock.requests.find(isChild)!;
    expect(JSON.stringify(child.body.system)).toContain('You are a strict reviewer.');
    expect(child.body.tools.map((tool: { name: string }) => tool.name)).toEqual(['read_file', 'read_result']);
    expect(JSON.stringify(t.mock.requests[0]!.body.tools)).toContain('reviewer');

    const bad = await runCli(['-p', 'x', '--agents', '{"reviewer":'], { cwd: t.project, env: t.env });
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^outrider: --agents: not valid JSON/)]);
  });
});
