import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createProvider } from '../../../src/core/providers/create.js';
import {
  describeTools,
  INVALID_TOOL_CALL,
  parseToolCall,
  ToolCallScanner,
  toTextToolMessages,
  type Segment,
} from '../../../src/core/providers/text-tools.js';
import { INVALID_JSON_KEY } from '../../../src/core/providers/tool-args.js';
import type { Message, ProviderName } from '../../../src/core/providers/types.js';
import { startMockProvider, type MockProvider } from '../../support/mock-provider.js';
import { collect, grepTool, readTool, recordingSleep, request, textAfterLastRetry } from '../../support/stream-helpers.js';

function scan(deltas: string[]): Segment[] {
  const scanner = new ToolCallScanner();
  const out = deltas.flatMap((d) => scanner.push(d));
  return [...out, ...scanner.finish()];
}

describe('ToolCallScanner', () => {
  it('separates text from tool_call bodies even when tags are split across deltas', () => {
    const segments = scan([
      'Let me look. <tool',
      '_call>{"name":"read_file","argu',
      'ments":{"path":"a"}}</tool_',
      'call> then more',
    ]);
    expect(segments).toEqual([
      { kind: 'text', text: 'Let me look. ' },
      { kind: 'call', raw: '{"name":"read_file","arguments":{"path":"a"}}' },
      { kind: 'text', text: ' then more' },
    ]);
  });

  it('holds back only what could still become a tag', () => {
    const scanner = new ToolCallScanner();
    expect(scanner.push('a < b and <tool')).toEqual([{ kind: 'text', text: 'a < b and ' }]);
    expect(scanner.push('box>')).toEqual([{ kind: 'text', text: '<toolbox>' }]);
    expect(scanner.push('<')).toEqual([]);
    expect(scanner.finish()).toEqual([{ kind: 'text', text: '<' }]);
  });

  it('treats an unclosed block at the end as a call', () => {
    expect(scan(['<tool_call>{"name":"grep","arguments":{"pattern":"x"}}'])).toEqual([
      { kind: 'call', raw: '{"name":"grep","arguments":{"pattern":"x"}}' },
    ]);
  });
});

describe('parseToolCall', () => {
  it('reads name and arguments, tolerating fences and double-encoded arguments', () => {
    expect(parseToolCall(' {"name": "grep", "arguments": {"pattern": "x"}} ')).toEqual({ name: 'grep', input: { pattern: 'x' } });
    expect(parseToolCall('```json\n{"name": "grep", "arguments": "{\\"pattern\\": \\"y\\"}"}\n```')).toEqual({
      name: 'grep',
      input: { pattern: 'y' },
    });
    expect(parseToolCall('{"name": "list"}')).toEqual({ name: 'list', input: {} });
  });

  it('keeps the raw text of a malformed block for the model to see', () => {
    expect(parseToolCall('{"name": "grep", "arguments": {"pattern": }')).toEqual({
      name: 'grep',
      input: { [INVALID_JSON_KEY]: '{"name": "grep", "arguments": {"pattern": }' },
    });
    expect(parseToolCall('{"arguments": {}}')).toEqual({
      name: INVALID_TOOL_CALL,
      input: { [INVALID_JSON_KEY]: '{"arguments": {}}' },
    });
    expect(parseToolCall('just words')).toEqual({ name: INVALID_TOOL_CALL, input: { [INVALID_JSON_KEY]: 'just words' } });
  });
});

describe('toTextToolMessages', () => {
  it('turns tool_use into <tool_call> text and tool_result into <tool_result> text named after its call', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Looking.' },
          { type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_use', id: 'c2', name: 'grep', input: { [INVALID_JSON_KEY]: '{"name":"grep",' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'c1', content: 'A' },
          { type: 'tool_result', toolUseId: 'c2', content: 'bad args', isError: true },
        ],
      },
    ];
    expect(toTextToolMessages(history)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        content: [
          {
            type: 'text',
            text: 'Looking.\n<tool_call>{"name":"read_file","arguments":{"path":"a"}}</tool_call>\n<tool_call>{"name":"grep",</tool_call>',
          },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: '<tool_result name="read_file">\nA\n</tool_result>\n\n<tool_result name="grep" error="true">\nbad args\n</tool_result>',
          },
        ],
      },
    ]);
  });

  it("carries a result's images after its text, in order", () => {
    const image = { type: 'image' as const, mediaType: 'image/png' as const, data: 'iVBORw0K' };
    const history: Message[] = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'read_file', input: { path: 'shot.png' } }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolUseId: 'c1', content: 'shot.png: PNG image, 3×2, 73 B', images: [image] },
          { type: 'text', text: 'and this?' },
        ],
      },
    ];
    expect(toTextToolMessages(history)[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: '<tool_result name="read_file">\nshot.png: PNG image, 3×2, 73 B\n</tool_result>' },
        image,
        { type: 'text', text: 'and this?' },
      ],
    });
  });
});

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
beforeEach(() => mock.reset());

describe.each(['anthropic', 'openai'] as const)('%s in text tool mode', (name: ProviderName) => {
  function provider() {
    const baseURL = name === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
    return createProvider({
      provider: name,
      apiKey: 'sk-text-mode-0001',
      baseURL,
      toolMode: 'text',
      sleep: recordingSleep().sleep,
    });
  }

  it('describes tools in the system prompt, sends none natively, and parses the calls back', async () => {
    mock.script({
      text:
        'I will read both.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>\n' +
        '<tool_call>{"name": "grep", "arguments": {"pattern": "TODO"}}</tool_call>',
    });
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'start' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'text_0_0', name: 'read_file', input: { path: 'x' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'text_0_0', content: 'X' }] },
    ];
    const result = await collect(provider()(request({ messages: history }), new AbortController().signal));

    const body = mock.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    const system = name === 'anthropic' ? body.system[0].text : body.messages[0].content;
    expect(system).toBe(`You are a test.\n\n${describeTools([readTool, grepTool])}`);
    expect(system).toContain('## read_file');
    expect(JSON.stringify(body.messages)).toContain('<tool_result name=\\"read_file\\">\\nX\\n</tool_result>');
    expect(JSON.stringify(body.messages)).toContain(
      '<tool_call>{\\"name\\":\\"read_file\\",\\"arguments\\":{\\"path\\":\\"x\\"}}</tool_call>',
    );

    expect(result.error).toBeUndefined();
    expect(result.end?.stopReason).toBe('tool_use');
    expect(result.end?.message.content).toEqual([
      { type: 'text', text: 'I will read both.\n' },
      { type: 'tool_use', id: 'text_1_0', name: 'read_file', input: { path: 'a.ts' } },
      { type: 'tool_use', id: 'text_1_1', name: 'grep', input: { pattern: 'TODO' } },
    ]);
    const shown = result.events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    expect(shown).not.toContain('<tool');
    expect(shown).toContain('I will read both.');
    expect(
      result.events.filter((e) => e.type === 'tool_call_start').map((e) => (e.type === 'tool_call_start' ? e.name : '')),
    ).toEqual(['read_file', 'grep']);
  });

  it('keeps the system bytes identical from turn to turn', async () => {
    mock.script({ text: 'one' }, { text: 'two' });
    const stream = provider();
    await collect(stream(request(), new AbortController().signal));
    const next = request({
      messages: [
        ...request().messages,
        { role: 'assistant', content: [{ type: 'text', text: 'one' }] },
        { role: 'user', content: [{ type: 'text', text: 'again' }] },
      ],
    });
    await collect(stream(next, new AbortController().signal));
    const systemOf = (i: number) =>
      JSON.stringify(name === 'anthropic' ? mock.requests[i]!.body.system : mock.requests[i]!.body.messages[0]);
    expect(systemOf(1)).toBe(systemOf(0));
  });

  it('turns a malformed block into a call the loop can report', async () => {
    mock.script({ text: 'Trying: <tool_call>{"name": "grep", "arguments": {"pattern": "x"</tool_call>' });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.end?.stopReason).toBe('tool_use');
    expect(result.end?.message.content).toEqual([
      { type: 'text', text: 'Trying: ' },
      {
        type: 'tool_use',
        id: 'text_0_0',
        name: 'grep',
        input: { [INVALID_JSON_KEY]: '{"name": "grep", "arguments": {"pattern": "x"' },
      },
    ]);
  });

  it('plain answers pass through with the inner stop reason', async () => {
    mock.script({ text: 'No tools needed; 2 < 3 and <b>bold</b>.' });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.end?.stopReason).toBe('end_turn');
    expect(result.end?.message.content).toEqual([{ type: 'text', text: 'No tools needed; 2 < 3 and <b>bold</b>.' }]);
  });

  it('starts the parse over when the stream is retried', async () => {
    const text = 'Reading <tool_call>{"name": "read_file", "arguments": {"path": "long/path/to/file.ts"}}</tool_call>';
    mock.script({ text, fault: { kind: 'cut', afterChunks: 6 } }, { text });
    const result = await collect(provider()(request(), new AbortController().signal));
    expect(result.retries).toHaveLength(1);
    expect(textAfterLastRetry(result.events)).toBe('Reading ');
    expect(result.end?.message.content).toEqual([
      { type: 'text', text: 'Reading ' },
      { type: 'tool_use', id: 'text_0_0', name: 'read_file', input: { path: 'long/path/to/file.ts' } },
    ]);
  });
});
