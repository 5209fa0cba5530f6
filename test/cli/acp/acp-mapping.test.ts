import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChildSessions } from '../../../src/cli/acp/child-sessions.js';
import { mcpConfigText } from '../../../src/cli/acp/mcp-config.js';
import { UnsupportedContentError, promptContent } from '../../../src/cli/acp/prompt-text.js';
import { SessionUpdates } from '../../../src/cli/acp/session-updates.js';
import { editDiff, toolKind, toolTitle } from '../../../src/cli/acp/tool-calls.js';
import { emptyUsage, type Job } from '../../../src/core/index.js';
import { b64, jpegImage, pngImage } from '../../support/images.js';

describe('ACP prompt content', () => {
  it('joins text, linked files and embedded context into one prompt', () => {
    expect(
      promptContent([
        { type: 'text', text: 'Fix' },
        { type: 'resource_link', name: 'a.ts', uri: 'file:///p/a.ts' },
        { type: 'text', text: 'using' },
        { type: 'resource', resource: { uri: 'file:///p/b.ts', text: 'const b = "```"; // see @docs/shot.png' } },
      ]),
    ).toEqual({
      text: 'Fix @/p/a.ts using\n~~~~ /p/b.ts\nconst b = "```"; // see @docs/shot.png\n~~~~\n',
      // The embedded file's text is the repository's: an `@shot.png` in it attaches nothing.
      typed: 'Fix @/p/a.ts using',
      images: [],
    });
  });

  it('attaches images and embedded image files, each checked; refuses audio and images no model takes', () => {
    const png = b64(pngImage());
    expect(
      promptContent([
        { type: 'text', text: 'Why is this red?' },
        { type: 'image', data: png, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///p/shot.jpg', blob: b64(jpegImage()), mimeType: 'image/jpeg' } },
        { type: 'resource', resource: { uri: 'file:///p/doc.pdf', blob: 'JVBERi0=', mimeType: 'application/pdf' } },
      ]),
    ).toEqual({
      text: 'Why is this red? /p/shot.jpg (image, attached) @/p/doc.pdf (binary, not attached)',
      typed: 'Why is this red?',
      images: [
        { type: 'image', mediaType: 'image/png', data: png },
        { type: 'image', mediaType: 'image/jpeg', data: b64(jpegImage()) },
      ],
    });
    expect(() => promptContent([{ type: 'audio', data: '', mimeType: 'audio/wav' }])).toThrow(UnsupportedContentError);
    expect(() => promptContent([{ type: 'image', data: b64(jpegImage()), mimeType: 'image/png' }])).toThrow(
      new UnsupportedContentError('image 1 is declared image/png but its bytes are JPEG: send it as image/jpeg'),
    );
    expect(() => promptContent([{ type: 'image', data: 'AAAA', mimeType: 'image/bmp' }])).toThrow(/a type no model takes/);
  });
});

describe('ACP MCP servers', () => {
  it("are Claude Code's mcpServers entries: stdio with env, http and sse with headers", () => {
    const text = mcpConfigText([
      { name: 'files', command: 'npx', args: ['server'], env: [{ name: 'TOKEN', value: 't' }] },
      { type: 'http', name: 'web', url: 'https://example.com/mcp', headers: [{ name: 'Authorization', value: 'Bearer x' }] },
      { type: 'sse', name: 'old', url: 'https://example.com/sse', headers: [] },
    ]);
    expect(JSON.parse(text!)).toEqual({
      mcpServers: {
        files: { type: 'stdio', command: 'npx', args: ['server'], env: { TOKEN: 't' } },
        web: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' } },
        old: { type: 'sse', url: 'https://example.com/sse', headers: {} },
      },
    });
    expect(mcpConfigText([])).toBeUndefined();
  });
});

describe('ACP tool calls', () => {
  it('have kinds and titles, and an edit shows the whole file before and after', () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'outrider-acp-'));
    writeFileSync(path.join(cwd, 'x.ts'), 'let a = 1;\nlet b = 1;\n');
    expect(toolKind('bash')).toBe('execute');
    expect(toolKind('mcp__server__tool')).toBe('other');
    expect(toolTitle('bash', 'npm test', { command: 'npm test' })).toBe('Run npm test');
    expect(editDiff('edit_file', { path: 'x.ts', old_string: '= 1', new_string: '= 2', replace_all: true }, cwd)).toEqual([
      { type: 'diff', path: path.join(cwd, 'x.ts'), oldText: 'let a = 1;\nlet b = 1;\n', newText: 'let a = 2;\nlet b = 2;\n' },
    ]);
    // Outside the project nothing is read before the gate: the call's own strings stand in.
    expect(editDiff('edit_file', { path: '../elsewhere.ts', old_string: 'x', new_string: 'y' }, cwd)).toEqual([
      { type: 'diff', path: path.resolve(cwd, '../elsewhere.ts'), oldText: 'x', newText: 'y' },
    ]);
  });

  it('a replayed history shows prompts, answers and calls with their results, not notices', () => {
    const updates = SessionUpdates.replay(
      [
        { role: 'user', content: [{ type: 'text', text: 'list it' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'list_dir', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', content: 'a.ts', isError: true }] },
        { role: 'user', content: [{ type: 'text', text: 'Sub-agent sub-1 completed.' }], noticeFor: ['sub-1'] },
        { role: 'assistant', content: [{ type: 'text', text: 'Only a.ts.' }] },
      ],
      '/p',
    );
    expect(updates.map((u) => u.sessionUpdate)).toEqual(['user_message_chunk', 'tool_call', 'agent_message_chunk']);
    expect(updates[1]).toMatchObject({ toolCallId: 'c1', kind: 'search', status: 'failed' });
  });

  it("a replayed prompt's images come back as image chunks, in order", () => {
    const data = b64(pngImage());
    const updates = SessionUpdates.replay(
      [
        {
          role: 'user',
          content: [
            { type: 'image', mediaType: 'image/png', data },
            { type: 'text', text: 'this' },
          ],
        },
      ],
      '/p',
    );
    expect(updates).toEqual([
      { sessionUpdate: 'user_message_chunk', content: { type: 'image', data, mimeType: 'image/png' } },
      { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: 'this' } },
    ]);
  });
});

describe('ACP child sessions', () => {
  const job = (state: Job['state'], extra: Partial<Job> = {}): Job => ({
    id: 'sub-1',
    number: 1,
    state,
    definition: 'explore',
    mode: 'typed',
    task: 'Look around',
    createdAt: 0,
    turns: 0,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
    ...extra,
  });

  it('announce a job once on its parent, then report each state change once, on the parent', () => {
    const sent: [string, unknown][] = [];
    const children = new ChildSessions({ parentId: 'p', cwd: '/p', send: (id, update) => sent.push([id, update]) });
    children.onJobState(job('queued'));
    children.onJobState(job('running'));
    children.onJobState(job('running', { turns: 1 }));
    children.onJobEvent('sub-1', { type: 'text_delta', text: 'found it' });
    children.onJobState(job('error', { error: 'maxTurns reached' }));
    expect(sent.map(([id, u]) => [id, (u as { sessionUpdate: string }).sessionUpdate])).toEqual([
      ['p', 'subagent_update'],
      ['p/sub-1', 'user_message_chunk'],
      ['p', 'subagent_update'],
      ['p/sub-1', 'agent_message_chunk'],
      ['p', 'subagent_update'],
    ]);
    expect(sent.at(-1)![1]).toMatchObject({
      sessionId: 'p/sub-1',
      state: { state: 'idle', stopReason: 'error', error: { message: 'maxTurns reached' } },
    });
    expect(children.jobOf('p/sub-1')).toBe('sub-1');
    expect(children.jobOf('p')).toBeUndefined();
  });
});
