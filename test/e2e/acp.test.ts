import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AcpEditor, jsonRpcLines, messageText, startAcp } from '../support/acp-client.js';
import { useMockProject } from '../support/e2e-project.js';
import { b64, jpegImage, pngImage } from '../support/images.js';
import { MCP_BIN } from '../support/mcp-servers.js';
import { until } from '../support/until.js';

const t = useMockProject();
const editors: AcpEditor[] = [];
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.close();
});

async function editor(options: Partial<Parameters<typeof startAcp>[0]> = {}): Promise<AcpEditor> {
  const started = await startAcp({ cwd: t.project, env: t.env, ...options });
  editors.push(started);
  return started;
}

const lastUserText = (body: any): string => JSON.stringify(body.messages.at(-1));

describe('outrider acp: a session and its prompts', () => {
  it('initializes with what it supports, and streams a turn with tool calls, a plan, diffs and permission requests', async () => {
    writeFileSync(path.join(t.project, 'a.txt'), 'hello\n');
    t.mock.script(
      {
        toolCalls: [
          {
            name: 'todo_write',
            args: {
              todos: [
                { content: 'Read a.txt', status: 'in_progress' },
                { content: 'Write files', status: 'pending' },
              ],
            },
          },
          { name: 'read_file', args: { path: 'a.txt' } },
        ],
      },
      { thinking: 'Now the files.', toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'bee\n' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'c.txt', content: 'sea\n' } }] },
      { text: 'Wrote b.txt; c.txt was refused.' },
    );
    const acp = await editor();
    expect(acp.init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    });
    const { sessionId, modes } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    expect(modes?.currentModeId).toBe('default');
    expect(modes?.availableModes.map((m) => m.id)).toEqual(['default', 'accept-edits', 'plan', 'yolo']);

    // Allow the first write once; the second asks again (once is not always) and is rejected.
    const answers = ['allow', 'deny'];
    acp.onPermission = (request) => {
      const optionId = answers.shift()!;
      expect(request.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);
      return { outcome: { outcome: 'selected', optionId } };
    };
    const response = await acp.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'Write the files' }],
    });
    expect(response.stopReason).toBe('end_turn');
    expect(response.usage?.totalTokens).toBeGreaterThan(0);

    expect(readFileSync(path.join(t.project, 'b.txt'), 'utf8')).toBe('bee\n');
    expect(existsSync(path.join(t.project, 'c.txt'))).toBe(false);
    const updates = acp.updates(sessionId);
    const calls = updates.filter((u) => u.sessionUpdate === 'tool_call');
    expect(calls.map((c) => [c.kind, c.title])).toEqual([
      ['think', 'Update the plan'],
      ['read', 'Read a.txt'],
      ['edit', 'Write b.txt'],
      ['edit', 'Write c.txt'],
    ]);
    expect(calls[1]!.locations).toEqual([{ path: path.join(t.project, 'a.txt') }]);
    // The write's diff is on the call before the question: the user sees what they allow.
    expect(calls[2]!.content).toEqual([{ type: 'diff', path: path.join(t.project, 'b.txt'), oldText: null, newText: 'bee\n' }]);
    expect(acp.permissions.map((p) => p.toolCall.toolCallId)).toEqual([calls[2]!.toolCallId, calls[3]!.toolCallId]);
    const ends = updates.filter((u) => u.sessionUpdate === 'tool_call_update' && u.status !== 'in_progress');
    expect(ends.map((u) => u.sessionUpdate === 'tool_call_update' && [u.toolCallId, u.status])).toEqual([
      [calls[0]!.toolCallId, 'completed'],
      [calls[1]!.toolCallId, 'completed'],
      [calls[2]!.toolCallId, 'completed'],
      [calls[3]!.toolCallId, 'failed'],
    ]);
    expect(JSON.stringify(ends[1])).toContain('hello');
    expect(JSON.stringify(ends[3])).toContain('The user denied write_file');
    expect(updates.find((u) => u.sessionUpdate === 'plan')).toEqual({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read a.txt', status: 'in_progress', priority: 'medium' },
        { content: 'Write files', status: 'pending', priority: 'medium' },
      ],
    });
    const thoughts = updates.flatMap((u) =>
      u.sessionUpdate === 'agent_thought_chunk' && u.content.type === 'text' ? [u.content.text] : [],
    );
    expect(thoughts.join('')).toBe('Now the files.');
    expect(messageText(updates)).toBe('Wrote b.txt; c.txt was refused.');
    // stdout is JSON-RPC alone.
    expect(jsonRpcLines(acp.stdout()).length).toBeGreaterThan(10);
  });

  it('session/set_mode changes what asks: in accept-edits a write runs without a question', async () => {
    t.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'd.txt', content: 'dee\n' } }] }, { text: 'done' });
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    await expect(acp.agent.request('session/set_mode', { sessionId, modeId: 'reckless' })).rejects.toThrow(
      /unknown mode "reckless": one of default, accept-edits, plan, yolo/,
    );
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write d' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.permissions).toEqual([]);
    expect(readFileSync(path.join(t.project, 'd.txt'), 'utf8')).toBe('dee\n');
  });

  it('offers the model as a config option; session/set_config_option moves the next prompt to another', async () => {
    t.mock.script({ text: 'on sonnet' }, { text: 'on opus' });
    const acp = await editor();
    const created = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const model = created.configOptions?.find((option: { id: string }) => option.id === 'model');
    expect(model).toMatchObject({ type: 'select', category: 'model', currentValue: 'claude-sonnet-5' });
    const values = (model as { options: { value: string }[] }).options.map((option) => option.value);
    expect(values).toEqual(expect.arrayContaining(['claude-sonnet-5', 'claude-opus-5-5']));
    expect(values.some((value) => value.startsWith('gpt-'))).toBe(false);
    const { sessionId } = created;
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'one' }] });
    await expect(
      acp.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'gpt-5.5' }),
    ).rejects.toThrow(/gpt-5\.5 is not served by the anthropic provider/);
    await expect(
      acp.agent.request('session/set_config_option', { sessionId, configId: 'temperature', value: 'hot' }),
    ).rejects.toThrow(/unknown configuration option "temperature"/);
    const set = await acp.agent.request('session/set_config_option', { sessionId, configId: 'model', value: 'claude-opus-5-5' });
    expect(set.configOptions[0]).toMatchObject({ id: 'model', currentValue: 'claude-opus-5-5' });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'two' }] });
    expect(t.mock.requests.map((r) => r.body.model)).toEqual(['claude-sonnet-5', 'claude-opus-5-5']);
  });

  it('session/cancel stops the turn mid-reply; the session takes the next prompt', async () => {
    t.mock.script({ text: 'Thinking about it at length', fault: { kind: 'stall', afterChunks: 4 } }, { text: 'Second answer.' });
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const prompt = acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'go on' }] });
    // Cancelled once the reply has begun streaming: the request is held open by the stall.
    await until(() => acp.updates(sessionId).some((u) => u.sessionUpdate === 'agent_message_chunk'), {
      what: 'the first text chunk',
    });
    expect(t.mock.inFlight()).toBe(1);
    await acp.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    await until(() => t.mock.inFlight() === 0, { what: 'the stalled request to be dropped', observe: () => t.mock.inFlight() });
    const next = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'again' }] });
    expect(next.stopReason).toBe('end_turn');
    expect(messageText(acp.updates(sessionId))).toContain('Second answer.');
  });

  it('session/load resumes an earlier session: its history is replayed, and the model sees it', async () => {
    writeFileSync(path.join(t.project, 'notes.md'), '# notes\n');
    t.mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'notes.md' } }] }, { text: 'The notes have a title.' });
    const first = await editor();
    const { sessionId } = await first.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await first.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'What is in notes.md?' }] });
    expect(await first.close()).toEqual({ code: 0, signal: null });
    editors.splice(editors.indexOf(first), 1);

    const second = await editor();
    const listed = await second.agent.request('session/list', { cwd: t.project });
    expect(listed.sessions.map((s) => [s.sessionId, s.title])).toEqual([[sessionId, 'What is in notes.md?']]);
    await second.agent.request('session/load', { sessionId, cwd: t.project, mcpServers: [] });
    // Everything was replayed before the answer to session/load.
    const replayed = second.updates(sessionId);
    expect(replayed.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'tool_call', 'agent_message_chunk']);
    expect(replayed[0]).toMatchObject({ content: { type: 'text', text: 'What is in notes.md?' } });
    expect(replayed[1]).toMatchObject({ kind: 'read', title: 'Read notes.md', status: 'completed' });
    expect(messageText(replayed)).toBe('The notes have a title.');

    t.mock.script({ text: 'Still about notes.' });
    const response = await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
    expect(response.stopReason).toBe('end_turn');
    const request = t.mock.requests.at(-1)!;
    expect(JSON.stringify(request.body.messages)).toContain('What is in notes.md?');
    expect(lastUserText(request.body)).toContain('And now?');
  });

  it('reads files through the editor when it offers fs/read_text_file (its unsaved buffer wins)', async () => {
    writeFileSync(path.join(t.project, 'buffer.ts'), 'on disk\n');
    t.mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'buffer.ts' } }] }, { text: 'read' });
    const acp = await editor({ capabilities: { fs: { readTextFile: true } } });
    const reads: string[] = [];
    acp.onReadTextFile = (request) => {
      reads.push(request.path);
      return { content: 'unsaved in the editor\n' };
    };
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'read buffer.ts' }] });
    expect(reads).toEqual([path.join(t.project, 'buffer.ts')]);
    const result = JSON.stringify(t.mock.requests.at(-1)!.body.messages.at(-1));
    expect(result).toContain('unsaved in the editor');
    expect(result).not.toContain('on disk');
  });

  it('writes through the editor when it offers fs/write_text_file; the disk holds the edit whatever the editor does', async () => {
    writeFileSync(path.join(t.project, 'e.txt'), 'one\ntwo\n');
    t.mock.script(
      { toolCalls: [{ name: 'write_file', args: { path: 'new.txt', content: 'fresh\n' } }] },
      { toolCalls: [{ name: 'edit_file', args: { path: 'e.txt', old_string: 'two', new_string: 'TWO' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'kept.txt', content: 'kept\n' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'failed.txt', content: 'still\n' } }] },
      { text: 'done' },
    );
    const acp = await editor({ capabilities: { fs: { writeTextFile: true } } });
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/set_mode', { sessionId, modeId: 'accept-edits' });
    // kept.txt stays in the editor's buffer unsaved; failed.txt's write fails in the editor.
    const save = acp.onWriteTextFile;
    acp.onWriteTextFile = (request) => {
      if (request.path.endsWith('kept.txt')) return {};
      if (request.path.endsWith('failed.txt')) throw new Error('the buffer is read-only');
      return save(request);
    };
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'write' }] });
    expect(response.stopReason).toBe('end_turn');
    expect(acp.writes.map((w) => [w.sessionId, path.relative(t.project, w.path), w.content])).toEqual([
      [sessionId, 'new.txt', 'fresh\n'],
      [sessionId, 'e.txt', 'one\nTWO\n'],
      [sessionId, 'kept.txt', 'kept\n'],
      [sessionId, 'failed.txt', 'still\n'],
    ]);
    for (const [file, text] of [
      ['new.txt', 'fresh\n'],
      ['e.txt', 'one\nTWO\n'],
      ['kept.txt', 'kept\n'],
      ['failed.txt', 'still\n'],
    ] as const)
      expect(readFileSync(path.join(t.project, file), 'utf8')).toBe(text);
  });

  it('starts the MCP servers the editor passes in session/new, and the model calls their tools', async () => {
    t.mock.script(
      { toolCalls: [{ name: 'mcp__everything__echo', args: { message: 'hello from the editor' } }] },
      { text: 'echoed' },
    );
    const acp = await editor();
    acp.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'allow' } });
    const { sessionId } = await acp.agent.request('session/new', {
      cwd: t.project,
      mcpServers: [{ name: 'everything', command: MCP_BIN.everything, args: [], env: [] }],
    });
    const response = await acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'echo' }] });
    expect(response.stopReason).toBe('end_turn');
    expect((t.mock.requests[0]!.body.tools as { name: string }[]).map((tool) => tool.name)).toContain('mcp__everything__echo');
    expect(JSON.stringify(t.mock.requests[1]!.body.messages.at(-1))).toContain('Echo: hello from the editor');
    expect(acp.updates(sessionId).find((u) => u.sessionUpdate === 'tool_call')).toMatchObject({ kind: 'other' });
  });

  it('takes embedded context and linked files into the prompt', async () => {
    t.mock.script({ text: 'ok' });
    const acp = await editor();
    const { sessionId } = await acp.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    await acp.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'Explain' },
        { type: 'resource_link', name: 'x.ts', uri: `file://${path.join(t.project, 'x.ts')}` },
        { type: 'resource', resource: { uri: `file://${path.join(t.project, 'y.ts')}`, text: 'const y = 1;' } },
      ],
    });
    const sent = lastUserText(t.mock.requests.at(-1)!.body);
    expect(sent).toContain(`Explain @${path.join(t.project, 'x.ts')}`);
    expect(sent).toContain('const y = 1;');
    await expect(
      acp.agent.request('session/prompt', { sessionId, prompt: [{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }] }),
    ).rejects.toThrow(/outrider takes no audio/);
    expect(t.mock.requests).toHaveLength(1);
  });

  it('sends a prompt’s image to the model in its own form, replays it on session/load, and refuses one that lies about its type', async () => {
    const png = b64(pngImage(2, 2));
    t.mock.script({ text: 'A red square.' });
    const first = await editor();
    const { sessionId } = await first.agent.request('session/new', { cwd: t.project, mcpServers: [] });
    const response = await first.agent.request('session/prompt', {
      sessionId,
      prompt: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', data: png, mimeType: 'image/png' },
      ],
    });
    expect(response.stopReason).toBe('end_turn');
    const prompt = t.mock.requests[0]!.body.messages[0];
    expect(prompt.content.map(({ cache_control: _c, ...block }: Record<string, unknown>) => block)).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
      { type: 'text', text: 'What is this?' },
    ]);

    // A JPEG called a PNG never reaches the model: the editor is told what to send instead.
    await expect(
      first.agent.request('session/prompt', {
        sessionId,
        prompt: [{ type: 'image', data: b64(jpegImage()), mimeType: 'image/png' }],
      }),
    ).rejects.toThrow('image 1 is declared image/png but its bytes are JPEG: send it as image/jpeg');
    expect(t.mock.requests).toHaveLength(1);
    expect(await first.close()).toEqual({ code: 0, signal: null });
    editors.splice(editors.indexOf(first), 1);

    const second = await editor();
    await second.agent.request('session/load', { sessionId, cwd: t.project, mcpServers: [] });
    expect(second.updates(sessionId).slice(0, 2)).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'image', data: png, mimeType: 'image/png' } },
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'What is this?' } },
    ]);
    t.mock.script({ text: 'Still red.' });
    await second.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'And now?' }] });
    expect(t.mock.requests.at(-1)!.body.messages[0].content[0]).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: png },
    });
  });
});
