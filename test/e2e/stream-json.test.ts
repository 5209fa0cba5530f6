import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SDKUserMessage, parseSdkLine } from '../support/claude-agent-sdk.js';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { b64, pngImage } from '../support/images.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();

const run = (args: string[], stdin?: string) => runCli(args, { cwd: t.project, env: t.env, stdin });

/** Every line parsed and checked against the SDK's message shapes. */
function sdkLines(stdout: string): any[] {
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  for (const line of lines) parseSdkLine(line);
  return lines;
}

const kinds = (lines: any[]) => lines.map((l) => (l.subtype ? `${l.type}/${l.subtype}` : l.type));

/** What a Claude Code driver writes on stdin: typed as the SDK's own input message. */
function userLine(content: SDKUserMessage['message']['content']): string {
  const message: SDKUserMessage = { type: 'user', message: { role: 'user', content }, parent_tool_use_id: null, session_id: '' };
  return `${JSON.stringify(message)}\n`;
}

describe('--output-format stream-json', () => {
  it("writes Claude Code's messages: init, assistant, user tool results, result", async () => {
    t.mock.script(
      { text: 'Looking.', toolCalls: [{ name: 'list_dir', args: {} }], usage: { input: 300, output: 20 } },
      { text: 'empty folder' },
    );
    const result = await run(['-p', 'look', '--output-format', 'stream-json', '--verbose']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = sdkLines(result.stdout);
    expect(kinds(lines)).toEqual(['system/init', 'assistant', 'user', 'assistant', 'result/success']);
    const [init, first, toolResult, , final] = lines;
    expect(init).toMatchObject({
      cwd: t.project,
      permissionMode: 'default',
      tools: expect.arrayContaining(['read_file', 'web_fetch', 'todo_write', 'agent_start']),
    });
    expect(first.message.content).toEqual([
      { type: 'text', text: 'Looking.', citations: null },
      { type: 'tool_use', id: expect.any(String), name: 'list_dir', input: {} },
    ]);
    expect(first.message.usage).toMatchObject({ input_tokens: 300, output_tokens: 20 });
    expect(toolResult.message.content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: first.message.content[1].id,
      is_error: false,
    });
    expect(final).toMatchObject({
      result: 'empty folder',
      is_error: false,
      num_turns: 2,
      session_id: init.session_id,
      stop_reason: 'end_turn',
    });
    expect(final.total_cost_usd).toBeGreaterThan(0);
    for (const line of lines) expect(line.session_id).toBe(init.session_id);
  });

  it('a rejected key ends with error_during_execution and the reason in errors', async () => {
    t.mock.script({ fault: { kind: 'status', status: 401 } });
    const result = await run(['-p', 'hi', '--output-format', 'stream-json']);
    expect(result.code).toBe(1);
    const final = sdkLines(result.stdout).at(-1);
    expect(final).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.'],
    });
    expect(result.stderr.trim()).toBe('outrider: Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.');
  });

  it('the turn cap ends with error_max_turns', async () => {
    t.mock.respond(() => ({ toolCalls: [{ name: 'list_dir', args: {} }] }));
    const result = await run(['-p', 'loop', '--output-format', 'stream-json', '--max-turns', '2']);
    expect(result.code).toBe(1);
    expect(sdkLines(result.stdout).at(-1)).toMatchObject({ subtype: 'error_max_turns', num_turns: 2 });
  });

  it("tags a sub-agent's messages with the agent_start call that started it", async () => {
    mkdirSync(path.join(t.project, 'src'));
    writeFileSync(path.join(t.project, 'src/auth.ts'), 'export const auth = 1;\n');
    const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
    t.mock.respond((request): Reply => {
      const last = JSON.stringify(request.body.messages.at(-1));
      if (isChild(request))
        return request.body.messages.length === 1
          ? { toolCalls: [{ name: 'read_file', args: { path: 'src/auth.ts' } }] }
          : { text: 'auth exports one constant' };
      if (request.body.messages.length === 1)
        return { toolCalls: [{ name: 'agent_start', args: { task: 'What does src/auth.ts export?' } }] };
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('auth exports one constant')) return { text: 'It exports one constant.' };
      return { text: 'Started; waiting.' };
    });
    const result = await run(['-p', 'what does auth export?', '--output-format', 'stream-json']);
    expect(result.code).toBe(0);
    const lines = sdkLines(result.stdout);
    const startCall = lines.find((l) => l.type === 'assistant' && l.message.content.some((b: any) => b.name === 'agent_start'));
    const callId = startCall.message.content.find((b: any) => b.name === 'agent_start').id;
    expect(startCall.parent_tool_use_id).toBeNull();
    const childMessages = lines.filter((l) => (l.type === 'assistant' || l.type === 'user') && l.agent_id === 'sub-1');
    expect(childMessages.map((l) => l.type)).toEqual(['assistant', 'user', 'assistant']);
    for (const message of childMessages) expect(message.parent_tool_use_id).toBe(callId);
    expect(
      lines.filter((l) => l.subtype === 'job_state').map((l) => `${l.job.id}:${l.job.state}:${l.parent_tool_use_id}`),
    ).toEqual([`sub-1:queued:${callId}`, `sub-1:running:${callId}`, `sub-1:done:${callId}`]);
    expect(kinds(lines)).toContain('system/job_delivered');
    // The notice the parent reads is a synthetic user message of the parent's own.
    expect(lines.find((l) => l.type === 'user' && l.isSynthetic)).toMatchObject({ parent_tool_use_id: null });
    const final = lines.at(-1);
    expect(final).toMatchObject({ subtype: 'success', result: 'It exports one constant.' });
    expect(final.jobs).toEqual([expect.objectContaining({ id: 'sub-1', status: 'done' })]);
  });
});

describe('--input-format stream-json', () => {
  it('runs each message on stdin as a turn, in order, with a result after each', async () => {
    t.mock.script({ text: 'first answer' }, { text: 'second answer' });
    const stdin = userLine('remember kiwi') + '\n' + userLine('which fruit?');
    const result = await run(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose'], stdin);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = sdkLines(result.stdout);
    expect(kinds(lines)).toEqual(['system/init', 'assistant', 'result/success', 'assistant', 'result/success']);
    expect(lines.filter((l) => l.type === 'result').map((l) => [l.result, l.num_turns])).toEqual([
      ['first answer', 1],
      ['second answer', 1],
    ]);
    const second = t.mock.requests[1]!.body.messages;
    expect(JSON.stringify(second)).toContain('remember kiwi');
    expect(JSON.stringify(second)).toContain('first answer');
    expect(second.at(-1).content.at(-1).text).toBe('which fruit?');
  });

  it('at EOF waits for sub-agents and gives the turn that hands over their reports its own result', async () => {
    const isChild = (r: RecordedRequest) => JSON.stringify(r.body.system).includes('You are a sub-agent');
    t.mock.respond((request): Reply => {
      const last = JSON.stringify(request.body.messages.at(-1));
      if (isChild(request)) return { text: 'child report' };
      if (request.body.messages.length === 1) return { toolCalls: [{ name: 'agent_start', args: { task: 'report' } }] };
      if (last.includes('completed. Call agent_poll')) return { toolCalls: [{ name: 'agent_poll', args: { id: 'sub-1' } }] };
      if (last.includes('child report')) return { text: 'Got the report.' };
      return { text: 'Started.' };
    });
    const result = await run(['--input-format', 'stream-json', '--output-format', 'stream-json'], userLine('start a helper'));
    expect(result.code).toBe(0);
    const results = sdkLines(result.stdout).filter((l) => l.type === 'result');
    expect(results.map((l) => l.result)).toEqual(['Started.', 'Got the report.']);
  });

  it('stops at a line that is not a user message, naming it, after the turns before it', async () => {
    t.mock.script({ text: 'ok' });
    // Control requests are the SDK's protocol (agent-sdk.test.ts); an assistant message is nobody's input.
    const stdin = userLine('hi') + '{"type":"assistant","message":{}}\n' + userLine('never');
    const result = await run(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'outrider: stdin line 2: only user messages are read, got "assistant"; expected {"type":"user","message":{"role":"user","content":"…"}}',
    );
    expect(kinds(sdkLines(result.stdout))).toEqual(['system/init', 'assistant', 'result/success']);
    expect(t.mock.requests).toHaveLength(1);
  });

  it("takes the Agent SDK's image blocks: the model gets them as sent; a line whose image is not what it claims stops the run", async () => {
    t.mock.script({ text: 'A red square.' });
    const png = b64(pngImage(2, 2));
    const stdin =
      userLine([
        { type: 'text', text: 'What is in this screenshot?' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      ]) + userLine([{ type: 'image', source: { type: 'base64', media_type: 'image/gif', data: png } }]);
    const result = await run(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], stdin);
    expect(result.stderr.trim()).toBe(
      'outrider: stdin line 2: image 1 is declared image/gif but its bytes are PNG: send it as image/png',
    );
    expect(result.code).toBe(2);
    expect(sdkLines(result.stdout).find((l) => l.type === 'result')?.result).toBe('A red square.');
    expect(t.mock.requests).toHaveLength(1);
    const content = t.mock.requests[0]!.body.messages[0].content;
    expect(content.map(({ cache_control: _c, ...block }: Record<string, unknown>) => block)).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'text', text: 'What is in this screenshot?' },
    ]);
  });

  it('refuses a prompt on the command line, another output format, or no message at all', async () => {
    const withPrompt = await run(['-p', 'hi', '--input-format', 'stream-json', '--output-format', 'stream-json']);
    expect(withPrompt.code).toBe(2);
    expect(withPrompt.stderr).toContain('drop the prompt after -p');
    const asText = await run(['-p', '--input-format', 'stream-json'], userLine('hi'));
    expect(asText.code).toBe(2);
    expect(asText.stderr).toContain('needs --output-format stream-json');
    const empty = await run(['-p', '--input-format', 'stream-json', '--output-format', 'stream-json'], '\n');
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('no user message on stdin');
    expect(t.mock.requests).toHaveLength(0);
  });
});
