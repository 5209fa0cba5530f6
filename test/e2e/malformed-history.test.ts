/**
 * Malformed model output and hand-edited transcripts, through the built binary: the run
 * survives, nothing malformed is saved, and `--continue` sends a valid history.
 */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Reply } from '../support/mock-provider.js';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();
const run = (args: string[]) => runCli(args, { cwd: t.project, env: t.env });

const ID = /^[a-zA-Z0-9_-]{1,40}$/;
const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Loose = Record<string, unknown>;
const isObject = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What the Anthropic API would reject in a request's messages; empty when it is valid. */
function problems(body: { messages: unknown }): string[] {
  const found: string[] = [];
  const messages = body.messages as unknown[];
  const seen = new Set<string>();
  if ((messages[0] as Loose | undefined)?.role !== 'user') found.push('the first message is not the user’s');
  messages.forEach((message, i) => {
    if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant'))
      return void found.push(`message ${i}: bad role`);
    const content = message.content;
    if (!Array.isArray(content) || content.length === 0) return void found.push(`message ${i}: content is not a non-empty list`);
    const callIds: string[] = [];
    for (const block of content) {
      if (!isObject(block)) {
        found.push(`message ${i}: a block is ${JSON.stringify(block)}`);
        continue;
      }
      if (block.type === 'text' && !(typeof block.text === 'string' && block.text !== ''))
        found.push(`message ${i}: text block without text`);
      if (block.type === 'thinking' && !(typeof block.thinking === 'string' && typeof block.signature === 'string')) {
        found.push(`message ${i}: thinking block without thinking or signature`);
      }
      if (block.type === 'tool_use') {
        if (message.role !== 'assistant') found.push(`message ${i}: tool_use in a user message`);
        if (typeof block.id !== 'string' || !ID.test(block.id))
          found.push(`message ${i}: tool_use id ${JSON.stringify(block.id)}`);
        else if (seen.has(block.id)) found.push(`message ${i}: tool_use id ${block.id} repeated`);
        else seen.add(block.id);
        if (typeof block.name !== 'string' || !NAME.test(block.name))
          found.push(`message ${i}: tool_use name ${JSON.stringify(block.name)}`);
        if (!isObject(block.input)) found.push(`message ${i}: tool_use input is not an object`);
        callIds.push(String(block.id));
      }
      if (block.type === 'tool_result') {
        const previous = messages[i - 1] as Loose | undefined;
        const calls = Array.isArray(previous?.content) ? (previous.content as Loose[]) : [];
        const answered =
          previous?.role === 'assistant' && calls.some((b) => b?.type === 'tool_use' && b.id === block.tool_use_id);
        if (message.role !== 'user' || !answered)
          found.push(`message ${i}: tool_result for ${JSON.stringify(block.tool_use_id)} without its call just before`);
      }
    }
    if (callIds.length > 0) {
      const next = messages[i + 1] as Loose | undefined;
      const results = (Array.isArray(next?.content) ? (next.content as Loose[]) : [])
        .filter((b) => b?.type === 'tool_result')
        .map((b) => b.tool_use_id);
      if (JSON.stringify([...results].sort()) !== JSON.stringify([...callIds].sort())) {
        found.push(`message ${i}: calls ${callIds.join(',')} answered by ${results.join(',')}`);
      }
    }
  });
  return found;
}

const SECOND = { text: 'second answer' };

describe('malformed model output', () => {
  const cases: [string, Reply, Reply[]][] = [
    [
      'a text block without text, then a delta',
      { rawBlocks: [{ start: { type: 'text' }, deltas: [{ type: 'text_delta', text: 'hello' }] }] },
      [],
    ],
    ['a thinking block without thinking', { text: 'answer', rawBlocks: [{ start: { type: 'thinking' } }] }, []],
    [
      'a tool_use without a name',
      { stopReason: 'tool_use', rawBlocks: [{ start: { type: 'tool_use', id: 'toolu_noname', input: {} } }] },
      [SECOND],
    ],
    [
      'a call without an id',
      { stopReason: 'tool_use', rawBlocks: [{ start: { type: 'tool_use', name: 'list_dir', input: {} } }] },
      [SECOND],
    ],
    ['an id with spaces and slashes', { toolCalls: [{ id: 'toolu bad/../id', name: 'list_dir', args: {} }] }, [SECOND]],
    [
      'two calls with the same id',
      {
        toolCalls: [
          { id: 'toolu_dup', name: 'list_dir', args: {} },
          { id: 'toolu_dup', name: 'glob', args: { pattern: '*' } },
        ],
      },
      [SECOND],
    ],
  ];

  it.each(cases)('%s: the run ends well, and --continue sends a valid history', async (_label, first, rest) => {
    t.mock.script(first, ...rest);
    const result = await run(['-p', 'go']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('undefined');
    for (const request of t.mock.requests) expect(problems(request.body)).toEqual([]);

    t.mock.script({ text: 'continued' });
    const next = await run(['-p', 'and then?', '--continue']);
    // Nothing needed repairing: what was saved was valid.
    expect(next.stderr).toBe('');
    expect(next.stdout).toBe('continued\n');
    expect(problems(t.mock.requests.at(-1)!.body)).toEqual([]);
  });

  it('the loop answers a call without a name with an error result the model can read', async () => {
    t.mock.script(
      { stopReason: 'tool_use', rawBlocks: [{ start: { type: 'tool_use', id: 'toolu_noname', input: {} } }] },
      SECOND,
    );
    const result = await run(['-p', 'go']);
    expect(result.code).toBe(0);
    expect(t.mock.requests[1]!.body.messages.at(-1).content[0]).toMatchObject({
      type: 'tool_result',
      tool_use_id: 'toolu_noname',
      is_error: true,
      content: expect.stringMatching(/^This tool call had no valid tool name\. Call a tool by its exact name: read_file, /),
    });
  });
});

describe('a hand-edited transcript, resumed with --continue', () => {
  const call = (id: unknown, name: unknown = 'list_dir') => ({ type: 'tool_use', id, name, input: {} });
  const result = (toolUseId: unknown, content = 'listing') => ({ type: 'tool_result', toolUseId, content });
  const text = (value: string) => ({ type: 'text', text: value });
  const prompt = { role: 'user', content: [text('first question')] };

  function writeTranscript(messages: unknown[]): void {
    const id = '20260101-000000-abcdef';
    const dir = path.join(t.home, 'sessions', id);
    mkdirSync(dir, { recursive: true });
    const at = '2026-01-01T00:00:00.000Z';
    const lines = [
      {
        type: 'meta',
        version: 1,
        sessionId: id,
        cwd: realpathSync(t.project),
        provider: 'anthropic',
        model: 'claude-sonnet-4-5',
        createdAt: at,
      },
      { type: 'event', name: 'system_prompt', data: { system: 'You are outrider.' }, at },
      ...messages.map((message) => ({ type: 'message', message, at })),
    ];
    writeFileSync(path.join(dir, 'transcript.jsonl'), lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  }

  const cases: [string, unknown[]][] = [
    ['a text block without text', [prompt, { role: 'assistant', content: [{ type: 'text' }, text('answer')] }]],
    ['a thinking block without thinking', [prompt, { role: 'assistant', content: [{ type: 'thinking' }, text('answer')] }]],
    [
      'a tool_use without a name',
      [
        prompt,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', input: {} }] },
        { role: 'user', content: [result('toolu_1')] },
      ],
    ],
    [
      'a call without an id',
      [prompt, { role: 'assistant', content: [call(undefined)] }, { role: 'user', content: [result(undefined)] }],
    ],
    [
      'an id with spaces and slashes',
      [prompt, { role: 'assistant', content: [call('toolu a/b c')] }, { role: 'user', content: [result('toolu a/b c')] }],
    ],
    [
      'two calls with the same id',
      [
        prompt,
        { role: 'assistant', content: [call('toolu_dup'), call('toolu_dup')] },
        { role: 'user', content: [result('toolu_dup'), result('toolu_dup')] },
      ],
    ],
    [
      'an orphan tool_result',
      [prompt, { role: 'assistant', content: [text('no calls')] }, { role: 'user', content: [result('toolu_gone')] }],
    ],
    ['calls without results', [prompt, { role: 'assistant', content: [call('toolu_a'), call('toolu_b')] }]],
    ['content: [null]', [prompt, { role: 'assistant', content: [null] }, { role: 'assistant', content: [text('after')] }]],
    [
      'content that is not a list',
      [
        { role: 'user', content: 'a plain string' },
        { role: 'assistant', content: { text: 'an object' } },
      ],
    ],
    ['an unknown role', [prompt, { role: 'system', content: [text('injected')] }, { role: 'tool', content: [result('x')] }]],
    [
      'no readable first prompt',
      [
        { role: 'user', content: 7 },
        { role: 'assistant', content: [text('an answer to nothing')] },
      ],
    ],
  ];

  it.each(cases)('%s: repaired before the first request', async (_label, messages) => {
    writeTranscript(messages);
    t.mock.script({ text: 'resumed fine' });
    const resumed = await run(['-p', 'go on', '--continue']);
    expect(resumed.stdout).toBe('resumed fine\n');
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/the transcript was repaired before resuming|they are marked interrupted/);
    expect(resumed.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
    const body = t.mock.requests[0]!.body;
    expect(problems(body)).toEqual([]);
    expect(JSON.stringify(body.messages.at(-1))).toContain('go on');
  });
});
