import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHILD_LIMITS,
  type ChildRunDeps,
  NUDGE,
  childTools,
  createChildRunner,
  finalText,
} from '../../../src/core/agents/child-run.js';
import { builtinDefinitions } from '../../../src/core/agents/builtin-agents.js';
import { ALL_TOOLS, type AgentDefinition, childModel } from '../../../src/core/agents/definitions.js';
import type { ChildRunRequest } from '../../../src/core/jobs/job-manager.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import type { Message } from '../../../src/core/providers/types.js';
import { builtinTools } from '../../../src/core/tools/builtin.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry } from '../../../src/core/tools/registry.js';
import { type FakeScript, fakeStream } from '../../support/fake-stream.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

const root = mkdtempSync(path.join(os.tmpdir(), 'outrider-child-'));
const workspace = makeWorkspace(root);
const parentTools = new ToolRegistry(builtinTools({ findRg: () => undefined }));

function definitions(extra: AgentDefinition[] = []) {
  return new Map([...builtinDefinitions(), ...extra].map((d) => [d.name, d]));
}

function runChild(
  script: FakeScript,
  options: {
    request?: Partial<ChildRunRequest>;
    extra?: AgentDefinition[];
    fork?: Message[];
    deps?: Partial<ChildRunDeps>;
  } = {},
) {
  const stream = fakeStream(script);
  const events: LoopEvent[] = [];
  const transcript: Message[] = [];
  const runner = createChildRunner({
    definitions: () => definitions(options.extra),
    parentTools,
    stream,
    model: 'parent-model',
    maxTokens: 1000,
    workspace,
    transcriptFor: () => ({ append: (m) => transcript.push(m) }),
    ...options.deps,
  });
  const outcome = runner({
    id: 'sub-1',
    task: 'find the config parser',
    definition: 'explore',
    mode: 'typed',
    signal: new AbortController().signal,
    onEvent: (e) => events.push(e),
    fork: options.fork ? { system: 'PARENT SYSTEM', schemas: parentTools.schemas(), messages: options.fork } : undefined,
    ...options.request,
  });
  return { outcome, stream, events, transcript };
}

const custom = (over: Partial<AgentDefinition>): AgentDefinition => ({
  name: 'custom',
  description: 'test agent',
  systemPrompt: 'You are custom.',
  disallowedTools: [],
  model: 'inherit',
  source: 'project',
  ...over,
});

describe('child runs', () => {
  it('starts from a fresh context: its own prompt, one task message, read-only tools', async () => {
    const { outcome, stream } = runChild([{ text: 'the parser is in src/config.ts' }], {
      request: { instructions: 'be brief' },
    });
    const ended = await outcome;
    expect(ended).toMatchObject({ status: 'done', text: 'the parser is in src/config.ts' });
    // Its whole conversation comes back, so a message can resume it.
    expect(ended.messages!.map((m) => m.role)).toEqual(['user', 'assistant']);
    const request = stream.requests[0]!;
    expect(request.system).toContain('You are a sub-agent');
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Extra instructions:\nbe brief\n\nTask:\nfind the config parser' }] },
    ]);
    expect(request.tools.map((t) => t.name)).toEqual(['read_file', 'grep', 'glob', 'list_dir']);
    expect(request.model).toBe('parent-model');
  });

  it('filters tools: allowlist ∩ registry − disallowed − agent_*, read_result always along', () => {
    const registry = new ToolRegistry([
      ...builtinTools({ findRg: () => undefined }),
      { ...parentTools.get('read_file')!, name: 'agent_start' },
      { ...parentTools.get('read_file')!, name: 'read_result' },
    ]);
    const names = (def: AgentDefinition) => childTools(registry, def).names();
    expect(names(custom({ tools: ['bash', 'edit_file', 'agent_start', 'nope'], disallowedTools: ['edit_file'] }))).toEqual([
      'bash',
      'read_result',
    ]);
    expect(names(custom({}))).toEqual(['read_file', 'grep', 'glob', 'list_dir', 'read_result']);
  });

  it('takes MCP tools by name or pattern (mcp__github__*); without a list, the read-only ones', () => {
    const like = (name: string, kind: 'read-only' | 'mutating' = 'read-only') => ({
      ...parentTools.get('read_file')!,
      name,
      kind,
    });
    const registry = new ToolRegistry([
      like('read_file'),
      like('mcp__github__search'),
      like('mcp__github__create', 'mutating'),
      like('mcp__db__query', 'mutating'),
    ]);
    const names = (def: AgentDefinition) => childTools(registry, def).names();
    expect(names(custom({ tools: ['read_file', 'mcp__github__*'], disallowedTools: ['mcp__github__create'] }))).toEqual([
      'read_file',
      'mcp__github__search',
    ]);
    expect(names(custom({ tools: ['mcp__db__query'] }))).toEqual(['mcp__db__query']);
    // The default set: the built-in read tools and the MCP tools that are read-only (their hint believed).
    expect(names(custom({}))).toEqual(['read_file', 'mcp__github__search']);
    expect(names(custom({ disallowedTools: ['mcp__github__*'] }))).toEqual(['read_file']);
  });

  it('a call outside the allowlist gets an error naming the available tools, and the child goes on', async () => {
    const { outcome, stream } = runChild([
      { toolCalls: [{ name: 'write_file', args: { path: 'x', content: 'y' } }] },
      { text: 'could not write' },
    ]);
    expect((await outcome).status).toBe('done');
    const result = stream.requests[1]!.messages.at(-1)!.content[0] as { content: string; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content).toBe('Tool "write_file" is not available. Available tools: read_file, grep, glob, list_dir.');
  });

  it('nudges a child that ends without text, at most twice', async () => {
    const silent = runChild([{ toolCalls: [{ name: 'list_dir', args: {} }] }, {}, {}, {}]);
    expect(await silent.outcome).toMatchObject({ status: 'done', text: '(sub-agent produced no text output)' });
    expect(silent.stream.requests).toHaveLength(4);
    expect(silent.stream.requests[2]!.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: NUDGE }] });
    const nudgedOnce = runChild([{}, { text: 'final answer' }]);
    expect(await nudgedOnce.outcome).toMatchObject({ status: 'done', text: 'final answer' });
  });

  it('returns the last assistant message that has text, joined by newlines', () => {
    const history: Message[] = [
      { role: 'assistant', content: [{ type: 'text', text: 'early' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'a' },
          { type: 'tool_use', id: '1', name: 'x', input: {} },
          { type: 'text', text: 'b' },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: '1', content: 'r' }] },
      { role: 'assistant', content: [] },
    ];
    expect(finalText(history)).toBe('a\nb');
    expect(finalText([])).toBe('(sub-agent produced no text output)');
  });

  it('ends as error naming the limit in the budget words, keeping its text and naming its tool calls', async () => {
    const { outcome, stream } = runChild(() => ({ text: 'so far: x', toolCalls: [{ name: 'list_dir', args: { path: '.' } }] }));
    expect(await outcome).toMatchObject({ status: 'error', error: 'budget: turns reached (10 of 10)' });
    expect((await outcome).text).toBe(
      `so far: x\n\nTool calls it made before the cap: ${Array.from({ length: 10 }, () => 'list_dir .').join(' · ')}`,
    );
    expect(stream.requests).toHaveLength(CHILD_LIMITS.maxTurns);
    const tight = runChild(() => ({ toolCalls: [{ name: 'list_dir', args: {} }] }), {
      extra: [custom({ maxTurns: 2 })],
      request: { definition: 'custom' },
    });
    expect((await tight.outcome).error).toBe('budget: turns reached (2 of 2)');
  });

  it('appends every message to its transcript as it goes', async () => {
    const { outcome, transcript } = runChild([{ toolCalls: [{ name: 'list_dir', args: {} }] }, { text: 'done' }]);
    await outcome;
    expect(transcript.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('fork mode replays the parent prefix byte for byte and appends only the task', async () => {
    const parent: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'compare auth and billing' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'p1', name: 'agent_start', input: { task: 't', mode: 'fork' } }] },
    ];
    const { outcome, stream } = runChild([{ text: 'forked answer' }], { fork: parent, request: { mode: 'fork' } });
    expect(await outcome).toMatchObject({ status: 'done', text: 'forked answer' });
    const request = stream.requests[0]!;
    expect(request.system).toBe('PARENT SYSTEM');
    expect(JSON.stringify(request.tools)).toBe(JSON.stringify(parentTools.schemas()));
    expect(request.messages.slice(0, 2)).toEqual(parent);
    const appended = request.messages[2]!;
    expect(appended.content[0]).toMatchObject({ type: 'tool_result', toolUseId: 'p1' });
    expect(appended.content[1]).toMatchObject({ type: 'text' });
    expect((appended.content[1] as { text: string }).text).toContain('Task:\nfind the config parser');
  });

  it('fork mode still filters tools when they execute', async () => {
    const parent: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
    const { outcome, stream } = runChild([{ toolCalls: [{ name: 'bash', args: { command: 'touch pwned' } }] }, { text: 'ok' }], {
      fork: parent,
      request: { mode: 'fork' },
    });
    await outcome;
    const result = stream.requests[1]!.messages.at(-1)!.content[0] as { content: string; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Tool "bash" is not available/);
  });

  it('a definition in plan mode keeps only read-only tools, whatever it lists (a Claude reviewer without tools:)', () => {
    const reviewer = custom({ tools: [...ALL_TOOLS], permissions: { mode: 'plan', ask: true, asWritten: 'plan' } });
    expect(childTools(parentTools, reviewer).names()).toEqual(['read_file', 'grep', 'glob', 'list_dir']);
    const accepting = custom({
      tools: [...ALL_TOOLS],
      permissions: { mode: 'accept-edits', ask: true, asWritten: 'acceptEdits' },
    });
    expect(childTools(parentTools, accepting).names()).toEqual([...ALL_TOOLS]);
  });

  it('a plan-mode child that calls write_file gets an error result and writes nothing', async () => {
    const reviewer = custom({
      name: 'reviewer',
      tools: [...ALL_TOOLS],
      permissions: { mode: 'plan', ask: true, asWritten: 'plan' },
    });
    const { outcome, stream } = runChild(
      [{ toolCalls: [{ name: 'write_file', args: { path: 'pwned.txt', content: 'x' } }] }, { text: 'reviewed' }],
      { extra: [reviewer], request: { definition: 'reviewer' } },
    );
    expect(await outcome).toMatchObject({ status: 'done', text: 'reviewed' });
    expect(stream.requests[0]!.tools.map((t) => t.name)).toEqual(['read_file', 'grep', 'glob', 'list_dir']);
    const result = stream.requests[1]!.messages.at(-1)!.content[0] as { content: string; isError: boolean };
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/^Tool "write_file" is not available/);
    expect(existsSync(path.join(root, 'pwned.txt'))).toBe(false);
  });

  it('runs a Claude model alias on the parent model, and a model id as written', async () => {
    for (const [model, sent] of [
      ['sonnet', 'parent-model'],
      ['OPUS', 'parent-model'],
      ['sonnet[1m]', 'parent-model'],
      ['inherit', 'parent-model'],
      ['gpt-5-mini', 'gpt-5-mini'],
    ]) {
      const { outcome, stream } = runChild([{ text: 'ok' }], { extra: [custom({ model })], request: { definition: 'custom' } });
      await outcome;
      expect(stream.requests[0]!.model).toBe(sent);
    }
    expect(childModel({ model: 'haiku' }, 'claude-sonnet-4-5')).toBe('claude-sonnet-4-5');
  });

  it("takes a definition's maxTurns over the default of 10", async () => {
    const long = custom({ maxTurns: 12 });
    const { outcome, stream } = runChild(() => ({ toolCalls: [{ name: 'list_dir', args: {} }] }), {
      extra: [long],
      request: { definition: 'custom' },
    });
    expect((await outcome).error).toBe('budget: turns reached (12 of 12)');
    expect(stream.requests).toHaveLength(12);
  });

  it("a definition from the repository may lower the session's limit, never raise it", async () => {
    const loop = () => ({ toolCalls: [{ name: 'list_dir', args: {} }] });
    const raised = runChild(loop, {
      extra: [custom({ maxTurns: 100_000, fromRepository: true })],
      request: { definition: 'custom' },
    });
    expect((await raised.outcome).error).toBe(`budget: turns reached (${CHILD_LIMITS.maxTurns} of ${CHILD_LIMITS.maxTurns})`);
    expect(raised.stream.requests).toHaveLength(CHILD_LIMITS.maxTurns);
    const lowered = runChild(loop, { extra: [custom({ maxTurns: 3, fromRepository: true })], request: { definition: 'custom' } });
    expect((await lowered.outcome).error).toBe('budget: turns reached (3 of 3)');
  });
});

describe('child runs: the caps the manager settled', () => {
  it('a wall-time cap ends the run on the injected clock, as failed with the time named', async () => {
    const clock = new FakeClock();
    const { outcome, stream } = runChild(() => ({ hang: true }), {
      request: { budget: { maxDurationMs: 5_000 } },
      deps: { now: clock.now, timers: clock },
    });
    await settle();
    expect(stream.requests).toHaveLength(1);
    clock.advance(4_999);
    await settle();
    let ended = false;
    void outcome.then(() => (ended = true));
    await settle();
    expect(ended).toBe(false);
    clock.advance(1);
    expect(await outcome).toMatchObject({ status: 'error', error: 'budget: time reached (5s)' });
  });

  it("lowers its definition's turns and tool calls, never raises them", async () => {
    const loop = () => ({ toolCalls: [{ name: 'list_dir', args: { path: '.' } }] });
    const lowered = runChild(loop, { request: { budget: { maxTurns: 2 } } });
    expect((await lowered.outcome).error).toBe('budget: turns reached (2 of 2)');
    const raised = runChild(loop, { request: { budget: { maxTurns: 50 } } });
    expect((await raised.outcome).error).toBe(`budget: turns reached (${CHILD_LIMITS.maxTurns} of ${CHILD_LIMITS.maxTurns})`);
    const calls = runChild(loop, { request: { budget: { maxToolCalls: 3 } } });
    expect((await calls.outcome).error).toBe('budget: tool calls reached (3 of 3; the calls past it were not run)');
    // Three calls ran; the fourth was asked for and answered "not run", and no call was made after it.
    expect(calls.stream.requests).toHaveLength(4);
    expect(calls.events.filter((e) => e.type === 'tool_start')).toHaveLength(3);
  });

  it('a refused model call is never made: the run ends with the refusal, before its turn counts', async () => {
    const { outcome, stream, events } = runChild([{ toolCalls: [{ name: 'list_dir', args: { path: '.' } }] }], {
      request: {
        admitCall: (request) =>
          request.messages.length > 1 ? { refused: 'budget: tokens reached (stub)' } : { release: () => {} },
      },
    });
    expect(await outcome).toMatchObject({ status: 'error', error: 'budget: tokens reached (stub)' });
    expect(stream.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === 'turn_start')).toHaveLength(1);
  });
});
