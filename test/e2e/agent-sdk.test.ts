import { type SDKMessage, createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { useMockProject } from '../support/e2e-project.js';
import { BIN } from '../support/run-cli.js';
import { until } from '../support/until.js';

/**
 * The real Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`, a test-only dependency) driving
 * the built binary through `pathToClaudeCodeExecutable`, against the mock provider: the
 * initialize handshake, canUseTool over `--permission-prompt-tool stdio`, interrupt() during a
 * turn, and the messages a program written for Claude Code reads.
 */
const t = useMockProject();

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function sdkQuery(prompt: string, options: Parameters<typeof query>[0]['options'] = {}) {
  return query({
    prompt,
    options: {
      pathToClaudeCodeExecutable: BIN,
      cwd: t.project,
      env: { PATH: process.env.PATH ?? '', HOME: t.home, ...t.env },
      ...options,
    },
  });
}

async function collect(messages: AsyncIterable<SDKMessage>): Promise<SDKMessage[]> {
  const out: SDKMessage[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

describe('the Claude Agent SDK drives outrider', () => {
  it('query() completes: init with a UUID session id, the assistant message, the result', async () => {
    t.mock.script({ text: 'hello from outrider' });
    const messages = await collect(sdkQuery('say hello', { appendSystemPrompt: 'Be brief.' } as never));
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init?.session_id).toMatch(UUID);
    const result = messages.at(-1);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'hello from outrider', is_error: false });
    expect(messages.some((m) => m.type === 'assistant')).toBe(true);
  });

  it("canUseTool is asked with Claude Code's names and obeyed: allow runs the call, deny refuses it", async () => {
    t.mock.script(
      { toolCalls: [{ name: 'bash', args: { command: 'touch allowed.txt' } }] },
      { toolCalls: [{ name: 'bash', args: { command: 'touch denied.txt' } }] },
      { text: 'done' },
    );
    const asked: Array<{ tool: string; input: Record<string, unknown> }> = [];
    const messages = await collect(
      sdkQuery('touch two files', {
        canUseTool: async (tool, input) => {
          asked.push({ tool, input });
          return String(input.command).includes('denied')
            ? { behavior: 'deny', message: 'not that one' }
            : { behavior: 'allow', updatedInput: input };
        },
      }),
    );
    expect(asked.map((a) => [a.tool, a.input.command])).toEqual([
      ['Bash', 'touch allowed.txt'],
      ['Bash', 'touch denied.txt'],
    ]);
    expect(existsSync(path.join(t.project, 'allowed.txt'))).toBe(true);
    expect(existsSync(path.join(t.project, 'denied.txt'))).toBe(false);
    expect(t.mock.requests[2]!.raw).toContain('not that one');
    const result = messages.at(-1) as Extract<SDKMessage, { type: 'result' }>;
    expect(result.permission_denials).toEqual([
      {
        tool_name: 'Bash',
        tool_use_id: expect.any(String),
        tool_input: expect.objectContaining({ command: 'touch denied.txt' }),
      },
    ]);
    // Tool results carry Claude Code's copy for programs.
    const toolResult = messages.find((m) => m.type === 'user' && 'tool_use_result' in m && m.tool_use_result !== undefined);
    expect(toolResult).toBeDefined();
  });

  it('canUseTool may change the input: the changed call is the one that runs', async () => {
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'asked.txt', content: 'x' } }] }, { text: 'done' });
    await collect(
      sdkQuery('write a file', {
        canUseTool: async (_tool, input) => ({
          behavior: 'allow',
          updatedInput: { ...input, file_path: path.join(t.project, 'changed.txt') },
        }),
      }),
    );
    expect(existsSync(path.join(t.project, 'changed.txt'))).toBe(true);
    expect(existsSync(path.join(t.project, 'asked.txt'))).toBe(false);
  });

  it('interrupt() is read while a turn runs and ends that turn', async () => {
    t.mock.script({ fault: { kind: 'hang' } });
    const q = sdkQuery('take forever');
    const seen: SDKMessage[] = [];
    const reading = (async () => {
      for await (const message of q) seen.push(message);
    })();
    await until(() => t.mock.inFlight() === 1, { what: 'the model call to be in flight' });
    await q.interrupt();
    await reading;
    const result = seen.at(-1);
    expect(result).toMatchObject({ type: 'result', is_error: true });
    expect(seen.filter((m) => m.type === 'result')).toHaveLength(1);
  });

  it('setModel() moves the next turn to another model; supportedModels() lists the catalogue', async () => {
    t.mock.script({ text: 'one' }, { text: 'two' });
    let firstDone!: () => void;
    const firstResult = new Promise<void>((resolve) => (firstDone = resolve));
    const user = (text: string) => ({
      type: 'user' as const,
      message: { role: 'user' as const, content: text },
      parent_tool_use_id: null,
      session_id: '',
    });
    let refused: unknown;
    async function* prompts() {
      yield user('first');
      await firstResult;
      // A model of another provider is refused, and the session stays where it was.
      refused = await q.setModel('gpt-5.5').catch((error: unknown) => error);
      await q.setModel('opus');
      yield user('second');
    }
    // The generator runs once the query reads it: `q` is set by then.
    const q = query({
      prompt: prompts(),
      options: { pathToClaudeCodeExecutable: BIN, cwd: t.project, env: { PATH: process.env.PATH ?? '', HOME: t.home, ...t.env } },
    });
    const models = await q.supportedModels();
    expect(models.map((m) => m.value)).toEqual(expect.arrayContaining(['claude-sonnet-5', 'claude-opus-5-5']));
    expect(models.some((m) => m.value.startsWith('gpt-'))).toBe(false);
    const results: SDKMessage[] = [];
    const labels: string[] = [];
    for await (const message of q) {
      if (message.type === 'assistant') labels.push(message.message.model);
      if (message.type !== 'result') continue;
      results.push(message);
      if (results.length === 1) firstDone();
      if (results.length === 2) break;
    }
    expect(results.map((r) => (r as { result?: string }).result)).toEqual(['one', 'two']);
    expect(t.mock.requests.map((r) => r.body.model)).toEqual(['claude-sonnet-5', 'claude-opus-5-5']);
    // The assistant messages name the model each turn ran on.
    expect(labels).toEqual(['claude-sonnet-5', 'claude-opus-5-5']);
    expect(String(refused)).toMatch(/gpt-5\.5 is not served by the anthropic provider/);
  });

  it("initialize's agents and system prompt shape the session; sub-agent jobs show as system messages", async () => {
    const isChild = (raw: string) => raw.includes('You are a sub-agent');
    t.mock.respond((request) => {
      if (isChild(request.raw)) return { text: 'the child found 42' };
      const asked = request.body.messages.length;
      return asked === 1
        ? { toolCalls: [{ name: 'agent_start', args: { task: 'find the number', agent: 'counter' } }] }
        : { text: 'all done' };
    });
    const messages = await collect(
      sdkQuery('use the counter', {
        agents: { counter: { description: 'counts things', prompt: 'You count.' } },
        systemPrompt: { type: 'preset', preset: 'claude_code', append: 'APPENDED-BY-SDK' },
      }),
    );
    const parentRequest = t.mock.requests.find((r) => !isChild(r.raw))!;
    expect(JSON.stringify(parentRequest.body.system)).toContain('APPENDED-BY-SDK');
    expect(JSON.stringify(parentRequest.body.tools)).toContain('counter');
    const jobStates = messages.filter((m) => m.type === 'system' && (m as { subtype: string }).subtype === 'job_state');
    expect(jobStates.length).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it("initialize's hooks run in the SDK: a PreToolUse callback's deny refuses the call, with Claude Code's input", async () => {
    t.mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch hooked.txt' } }] }, { text: 'done' });
    const seen: Array<Record<string, unknown>> = [];
    const messages = await collect(
      sdkQuery('touch', {
        permissionMode: 'bypassPermissions',
        allowDangerouslySkipPermissions: true,
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                async (input) => {
                  seen.push(input as unknown as Record<string, unknown>);
                  return {
                    hookSpecificOutput: {
                      hookEventName: 'PreToolUse',
                      permissionDecision: 'deny',
                      permissionDecisionReason: 'the SDK said no',
                    },
                  };
                },
              ],
            },
          ],
        },
      }),
    );
    expect(seen).toEqual([
      expect.objectContaining({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_input: expect.objectContaining({ command: 'touch hooked.txt' }),
      }),
    ]);
    expect(existsSync(path.join(t.project, 'hooked.txt'))).toBe(false);
    expect(t.mock.requests[1]!.raw).toContain('the SDK said no');
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success' });
  });

  it('in-process MCP servers (sdkMcpServers): the model calls their tools, which run in the SDK program', async () => {
    t.mock.script({ toolCalls: [{ name: 'mcp__calc__add', args: { a: 2, b: 3 } }] }, { text: 'the sum is 5' });
    const added: Array<{ a: number; b: number }> = [];
    const calc = createSdkMcpServer({
      name: 'calc',
      version: '1.0.0',
      tools: [
        tool('add', 'adds two numbers', { a: z.number(), b: z.number() }, async (args) => {
          added.push(args);
          return { content: [{ type: 'text', text: String(args.a + args.b) }] };
        }),
      ],
    });
    const q = sdkQuery('add 2 and 3', { mcpServers: { calc }, allowedTools: ['mcp__calc__add'] });
    const messages: SDKMessage[] = [];
    for await (const message of q) {
      messages.push(message);
      // The server as `/mcp` shows it, while the session runs.
      if (message.type === 'system' && message.subtype === 'init')
        expect(await q.mcpServerStatus()).toEqual([expect.objectContaining({ name: 'calc', status: 'connected' })]);
    }
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init') as Extract<SDKMessage, { subtype: 'init' }>;
    expect(init.mcp_servers).toEqual([{ name: 'calc', status: 'connected' }]);
    expect(JSON.stringify(t.mock.requests[0]!.body.tools)).toContain('mcp__calc__add');
    expect(added).toEqual([{ a: 2, b: 3 }]);
    const toolResult = JSON.stringify(t.mock.requests[1]!.body.messages.at(-1));
    expect(toolResult).toContain('tool_result');
    expect(toolResult).toContain('"5"');
    expect(messages.at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'the sum is 5' });
  });
});
