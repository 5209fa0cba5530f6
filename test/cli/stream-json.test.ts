import { describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/jobs/job-manager.js';
import type { SessionEvent } from '../../src/core/session/event-stream.js';
import {
  type AssistantMessage,
  type InitMessage,
  type ResultMessage,
  type UserMessage,
  resultSubtype,
} from '../../src/cli/stream-json-messages.js';
import { type TurnGroup, createStreamJson } from '../../src/cli/stream-json.js';
import {
  type SDKAssistantMessage,
  type SDKResultMessage,
  type SDKSystemMessage,
  type SDKUserMessage,
  parseSdkLine,
} from '../support/claude-agent-sdk.js';

// tsc: the messages the formatter declares are values of the SDK's types.
type Is<T, U extends T> = U;
export type FormatterChecks = [
  Is<SDKSystemMessage, InitMessage>,
  Is<SDKAssistantMessage, AssistantMessage>,
  Is<SDKUserMessage, UserMessage>,
  Is<SDKResultMessage, ResultMessage>,
];

const info = {
  sessionId: '20250101-120000-abc123',
  cwd: '/p',
  model: 'claude-sonnet-4-5',
  provider: 'anthropic',
  tools: ['read_file', 'agent_start'],
  agents: ['explore', 'general'],
  mcpServers: [
    { name: 'github', source: '.mcp.json', transport: 'stdio' as const, state: 'ready' as const, tools: ['mcp__github__x'] },
    { name: 'broken', source: 'settings', transport: 'http' as const, state: 'failed' as const, tools: [], error: 'refused' },
  ],
  slashCommands: ['review', 'frontend:component'],
  skills: ['pdf'],
  permissionMode: 'accept-edits' as const,
  version: '0.1.0',
  contextWindow: 200_000,
  maxOutput: 64_000,
};
const usage = { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 };
const job = (state: Job['state']): Job => ({
  id: 'sub-1',
  number: 1,
  state,
  definition: 'explore',
  mode: 'typed',
  task: 'look',
  createdAt: 0,
  turns: 0,
  toolCalls: 0,
  contextTokens: 0,
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  callId: 'toolu_start',
});
const group = (overrides: Partial<TurnGroup> = {}): TurnGroup => ({
  cause: { kind: 'completed' },
  text: 'done',
  turns: 2,
  durationMs: 1234,
  usage,
  totals: usage,
  costUsd: 0.01,
  jobs: [],
  ...overrides,
});

function run(events: SessionEvent[], groups: TurnGroup[] = [group()]) {
  const lines: any[] = [];
  let clock = 0;
  const stream = createStreamJson(info, (line) => lines.push(JSON.parse(JSON.stringify(line))), { now: () => (clock += 100) });
  stream.init();
  for (const event of events) stream.event(event);
  for (const g of groups) stream.result(g);
  for (const line of lines) parseSdkLine(line);
  return lines;
}

describe('stream-json formatter', () => {
  it('writes init, the assistant message with its blocks and usage, the tool result, and the result', () => {
    const lines = run([
      { type: 'submit', prompt: 'look' },
      { type: 'turn_start', turn: 1 },
      { type: 'text_delta', text: 'Let me look.' },
      { type: 'usage', usage, total: usage },
      {
        type: 'message_end',
        stopReason: 'tool_use',
        message: {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'text', text: 'Let me look.' },
            { type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: {} },
          ],
        },
      },
      { type: 'tool_start', id: 'toolu_1', name: 'list_dir', label: '.', args: {} },
      { type: 'tool_end', id: 'toolu_1', name: 'list_dir', content: 'a.txt', isError: false },
      { type: 'turn_end', turn: 1 },
      { type: 'run_end', cause: { kind: 'completed' } },
    ]);
    expect(lines.map((l) => `${l.type}${l.subtype ? `/${l.subtype}` : ''}`)).toEqual([
      'system/init',
      'assistant',
      'user',
      'result/success',
    ]);
    expect(lines[0]).toMatchObject({
      permissionMode: 'acceptEdits',
      apiKeySource: 'ANTHROPIC_API_KEY',
      agents: ['explore', 'general'],
      session_id: info.sessionId,
    });
    expect(lines[1].message).toMatchObject({
      role: 'assistant',
      stop_reason: 'tool_use',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'text', text: 'Let me look.', citations: null },
        { type: 'tool_use', id: 'toolu_1', name: 'list_dir', input: {} },
      ],
      usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50, cache_creation_input_tokens: 10 },
    });
    expect(lines[1].parent_tool_use_id).toBeNull();
    expect(lines[2]).toMatchObject({
      parent_tool_use_id: null,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'a.txt', is_error: false }] },
    });
    expect(lines[3]).toMatchObject({
      result: 'done',
      num_turns: 2,
      duration_ms: 1234,
      duration_api_ms: 100,
      stop_reason: 'tool_use',
      total_cost_usd: 0.01,
    });
    expect(lines[3].modelUsage['claude-sonnet-4-5']).toMatchObject({
      inputTokens: 100,
      contextWindow: 200_000,
      maxOutputTokens: 64_000,
    });
    expect(new Set(lines.map((l) => l.uuid)).size).toBe(lines.length);
  });

  it("tags a sub-agent's messages with the agent_start call that started it", () => {
    const counters = { turns: 0, toolCalls: 0, contextTokens: 0, usage };
    const child = (event: any): SessionEvent => ({ type: 'job_event', jobId: 'sub-1', event, counters });
    const lines = run([
      { type: 'job_state', job: job('queued') },
      { type: 'job_state', job: job('running') },
      child({ type: 'turn_start', turn: 1 }),
      child({ type: 'usage', usage: { ...usage, input: 7 }, total: usage }),
      child({
        type: 'message_end',
        stopReason: 'tool_use',
        message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_c', name: 'read_file', input: { path: 'a' } }] },
      }),
      child({ type: 'tool_end', id: 'toolu_c', name: 'read_file', content: 'x', isError: true }),
      { type: 'job_state', job: job('done') },
      { type: 'job_delivered', jobIds: ['sub-1'], via: 'notice' },
      {
        type: 'injected',
        message: { role: 'user', content: [{ type: 'text', text: 'Sub-agent sub-1 completed.' }], noticeFor: ['sub-1'] },
      },
    ]);
    const assistant = lines.find((l) => l.type === 'assistant');
    expect(assistant).toMatchObject({ parent_tool_use_id: 'toolu_start', agent_id: 'sub-1' });
    expect(assistant.message.usage.input_tokens).toBe(7);
    expect(lines.find((l) => l.type === 'user' && !l.isSynthetic)).toMatchObject({
      parent_tool_use_id: 'toolu_start',
      agent_id: 'sub-1',
    });
    expect(lines.filter((l) => l.subtype === 'job_state').map((l) => [l.job.state, l.parent_tool_use_id])).toEqual([
      ['queued', 'toolu_start'],
      ['running', 'toolu_start'],
      ['done', 'toolu_start'],
    ]);
    expect(lines.find((l) => l.subtype === 'job_delivered')).toMatchObject({ job_ids: ['sub-1'], via: 'notice' });
    expect(lines.find((l) => l.isSynthetic)).toMatchObject({
      parent_tool_use_id: null,
      message: { content: [{ type: 'text', text: 'Sub-agent sub-1 completed.' }] },
    });
  });

  it('writes retries, compaction, notices and todos as system messages', () => {
    const lines = run([
      { type: 'usage', usage, total: usage },
      { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 500, reason: 'rate limited (429)' },
      { type: 'compact', removedMessages: 12, summaryChars: 900 },
      { type: 'notice', level: 'warn', text: 'could not write' },
      { type: 'todos', todos: [{ content: 'a', status: 'pending' }] },
      { type: 'budget_reached', limit: 'tokens', budget: 10, used: 12, stopped: ['sub-2'] },
    ]);
    expect(lines.find((l) => l.subtype === 'api_retry')).toMatchObject({
      error: 'rate_limit',
      error_status: 429,
      retry_delay_ms: 500,
    });
    expect(lines.find((l) => l.subtype === 'compact_boundary')).toMatchObject({
      compact_metadata: { trigger: 'auto', pre_tokens: 180 },
      removed_messages: 12,
    });
    expect(lines.find((l) => l.subtype === 'notice')).toMatchObject({ level: 'warn', text: 'could not write' });
    expect(lines.find((l) => l.subtype === 'todos')).toMatchObject({ todos: [{ content: 'a', status: 'pending' }] });
    expect(lines.find((l) => l.subtype === 'budget_reached')).toMatchObject({ stopped: ['sub-2'] });
  });

  it("lists MCP servers in init with Claude Code's statuses; their changes, tool changes and warnings are system messages", () => {
    const lines: any[] = [];
    const stream = createStreamJson(info, (line) => lines.push(JSON.parse(JSON.stringify(line))));
    stream.init();
    stream.warning('agent file x.md: ignored color');
    stream.event({
      type: 'mcp_server',
      server: { name: 'late', source: 'settings', transport: 'sse', state: 'starting', tools: [] },
    });
    stream.event({ type: 'tools_changed', added: ['mcp__late__a'], removed: [] });
    for (const line of lines) parseSdkLine(line);
    expect(lines[0].mcp_servers).toEqual([
      { name: 'github', status: 'connected' },
      { name: 'broken', status: 'failed' },
    ]);
    expect(lines[1]).toMatchObject({ type: 'system', subtype: 'warning', message: 'agent file x.md: ignored color' });
    expect(lines[2]).toMatchObject({ subtype: 'mcp_server', status: 'pending', server: { name: 'late', transport: 'sse' } });
    expect(lines[3]).toMatchObject({ subtype: 'tools_changed', added: ['mcp__late__a'], removed: [] });
    for (const line of lines.slice(1)) expect(line.session_id).toBe(info.sessionId);
  });

  it('names each way a run fails with the SDK subtypes, and the reason in errors', () => {
    expect(resultSubtype({ kind: 'completed' })).toBe('success');
    expect(resultSubtype({ kind: 'limit', limit: 'maxTurns', detail: '' })).toBe('error_max_turns');
    expect(resultSubtype({ kind: 'error', message: 'x' })).toBe('error_during_execution');
    expect(resultSubtype({ kind: 'aborted' })).toBe('error_during_execution');
    expect(resultSubtype({ kind: 'limit', limit: 'maxDuration', detail: '' })).toBe('error_during_execution');
    const [, result] = run(
      [],
      [
        group({
          cause: { kind: 'error', message: 'bad key' },
          error: 'Anthropic rejected the API key (401)',
          costUsd: undefined,
        }),
      ],
    );
    expect(result).toMatchObject({
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['Anthropic rejected the API key (401)'],
      total_cost_usd: 0,
    });
  });

  it("modelUsage has one entry per model the session used, sub-agents' included; each job carries its own", () => {
    const haikuJob = { id: 'sub-1', model: 'claude-haiku-4-5', modelUsage: { 'claude-haiku-4-5': { inputTokens: 7 } } };
    const [, result] = run(
      [],
      [
        group({
          models: [
            { model: 'claude-sonnet-4-5', usage, cost: 0.01, contextWindow: 200_000, maxOutput: 64_000 },
            { model: 'claude-haiku-4-5', usage: { ...usage, input: 7 }, contextWindow: 200_000, maxOutput: 64_000 },
          ],
          jobs: [haikuJob],
        }),
      ],
    );
    expect(result.modelUsage).toEqual({
      'claude-sonnet-4-5': {
        inputTokens: 100,
        outputTokens: 20,
        cacheReadInputTokens: 50,
        cacheCreationInputTokens: 10,
        webSearchRequests: 0,
        costUSD: 0.01,
        contextWindow: 200_000,
        maxOutputTokens: 64_000,
      },
      // No known price: 0, as Claude Code's field is a number.
      'claude-haiku-4-5': expect.objectContaining({ inputTokens: 7, costUSD: 0 }),
    });
    expect(result.jobs).toEqual([haikuJob]);
  });

  it('counts API time per result', () => {
    const lines = run(
      [
        { type: 'turn_start', turn: 1 },
        { type: 'message_end', stopReason: 'end_turn', message: { role: 'assistant', content: [{ type: 'text', text: 'a' }] } },
      ],
      [group(), group()],
    );
    expect(lines.filter((l) => l.type === 'result').map((l) => l.duration_api_ms)).toEqual([100, 0]);
  });
});

describe("stream-json: Claude Code's details", () => {
  const turn: SessionEvent[] = [
    { type: 'turn_start', turn: 1 },
    { type: 'thinking_delta', text: 'hm' },
    { type: 'text_delta', text: 'Hel' },
    { type: 'text_delta', text: 'lo' },
    {
      type: 'message_end',
      stopReason: 'tool_use',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hm', signature: 's' },
          { type: 'text', text: 'Hello' },
          { type: 'tool_use', id: 'toolu_9', name: 'bash', input: { command: 'ls' } },
        ],
      },
    },
    { type: 'tool_end', id: 'toolu_9', name: 'bash', content: 'boom', isError: true },
  ];

  it('--include-partial-messages: the stream events of the message, rebuilt from the deltas', () => {
    const lines: any[] = [];
    const stream = createStreamJson(info, (line) => lines.push(JSON.parse(JSON.stringify(line))), { partial: true });
    for (const event of turn) stream.event(event);
    const events = lines.filter((l) => l.type === 'stream_event');
    expect(events.every((l) => l.session_id === info.sessionId && l.parent_tool_use_id === null)).toBe(true);
    expect(events.map((l) => [l.event.type, l.event.index, l.event.delta?.type ?? l.event.content_block?.type])).toEqual([
      ['message_start', undefined, undefined],
      ['content_block_start', 0, 'thinking'],
      ['content_block_delta', 0, 'thinking_delta'],
      ['content_block_stop', 0, undefined],
      ['content_block_start', 1, 'text'],
      ['content_block_delta', 1, 'text_delta'],
      ['content_block_delta', 1, 'text_delta'],
      ['content_block_stop', 1, undefined],
      ['content_block_start', 2, 'tool_use'],
      ['content_block_delta', 2, 'input_json_delta'],
      ['content_block_stop', 2, undefined],
      ['message_delta', undefined, undefined],
      ['message_stop', undefined, undefined],
    ]);
    expect(events[9].event.delta.partial_json).toBe('{"command":"ls"}');
    expect(events[11].event.delta.stop_reason).toBe('tool_use');
    // Without the flag: none.
    expect(run(turn).some((l) => l.type === 'stream_event')).toBe(false);
  });

  it("user lines carry tool_use_result; the result lists the denied calls in Claude Code's names", () => {
    const lines = run(turn, [
      group({
        denials: [
          { toolName: 'bash', callId: 'toolu_9', args: { command: 'rm -rf x' }, message: 'denied' },
          { toolName: 'write_file', callId: 'toolu_10', args: { path: 'a.txt', content: '' }, message: 'denied' },
          // A sub-agent's denial is its own, not the session's result's.
          { toolName: 'bash', callId: 'toolu_11', args: { command: 'x' }, message: 'denied', jobId: 'sub-1' },
        ],
      }),
    ]);
    expect(lines.find((l) => l.type === 'user').tool_use_result).toBe('Error: boom');
    expect(lines.at(-1).permission_denials).toEqual([
      { tool_name: 'Bash', tool_use_id: 'toolu_9', tool_input: { command: 'rm -rf x' } },
      { tool_name: 'Write', tool_use_id: 'toolu_10', tool_input: { path: 'a.txt', content: '', file_path: '/p/a.txt' } },
    ]);
  });
});
