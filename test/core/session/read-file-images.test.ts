/**
 * read_file of an image, end to end: real sessions (openSession, the real SDK clients) against
 * the mock provider, which refuses an image in a shape its API would refuse. The image reaches
 * each wire as that API takes a tool's image, and a resumed session sends it again.
 */
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSession } from '../../../src/core/session/open-session.js';
import type { OpenedSession, SessionSetup } from '../../../src/core/session/opened-session.js';
import { b64, pngImage } from '../../support/images.js';
import { type MockProvider, startMockProvider } from '../../support/mock-provider.js';
import { type TestDirs, testDirs } from '../../support/test-session.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
const opened: OpenedSession[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  mock.reset();
});

type Api = 'anthropic' | 'chat' | 'responses';
const png = pngImage(3, 2);
const data = b64(png);
const text = `shot.png: PNG image, 3×2, ${png.length} B`;
const callId = (api: Api) => (api === 'anthropic' ? 'toolu_img' : 'call_img');

function env(api: Api, dirs: TestDirs): Record<string, string> {
  if (api === 'anthropic') return { ...dirs.env, ANTHROPIC_BASE_URL: mock.anthropicBaseURL };
  if (api === 'responses') {
    mkdirSync(dirs.env.OUTRIDER_HOME!, { recursive: true });
    writeFileSync(path.join(dirs.env.OUTRIDER_HOME!, 'settings.json'), JSON.stringify({ openai: { api: 'responses' } }));
  }
  return { OUTRIDER_HOME: dirs.env.OUTRIDER_HOME!, OPENAI_API_KEY: 'sk-test-openai-1234', OPENAI_BASE_URL: mock.openaiBaseURL };
}

async function open(api: Api, dirs: TestDirs, flags: SessionSetup['flags'] = {}) {
  const model = api === 'anthropic' ? { model: 'claude-sonnet-4-5' } : { provider: 'openai' as const, model: 'gpt-4.1' };
  const session = await openSession({ cwd: dirs.cwd, env: env(api, dirs), headless: true, flags: { ...model, ...flags } });
  opened.push(session);
  return session;
}

const submit = (session: OpenedSession, prompt: string) => session.session.submit(prompt, new AbortController().signal);

/** What the second request (the one after the call) carries of the call's result. */
const resultOnWire: Record<Api, (body: any) => unknown> = {
  // The last block carries the cache breakpoint.
  anthropic: (body) => body.messages.at(-1).content.map(({ cache_control: _c, ...block }: any) => block),
  // A tool message takes text alone: the image follows in a user message of its own.
  chat: (body) => body.messages.slice(-2),
  responses: (body) => body.input.at(-1),
};

const expected: Record<Api, unknown> = {
  anthropic: [
    {
      type: 'tool_result',
      tool_use_id: 'toolu_img',
      content: [
        { type: 'text', text },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
      ],
    },
  ],
  chat: [
    { role: 'tool', tool_call_id: 'call_img', content: text },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'The image the tool call call_img returned:' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } },
      ],
    },
  ],
  responses: {
    type: 'function_call_output',
    call_id: 'call_img',
    output: [
      { type: 'input_text', text },
      { type: 'input_image', image_url: `data:image/png;base64,${data}`, detail: 'auto' },
    ],
  },
};

describe.each(['anthropic', 'chat', 'responses'] as const)('read_file of an image on the %s wire', (api) => {
  it('sends the image with the result, as the API takes it, and the turns after it are taken too', async () => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'shot.png'), png);
    mock.script(
      { toolCalls: [{ id: callId(api), name: 'read_file', args: { path: 'shot.png' } }] },
      { text: 'A red rectangle.' },
      { text: 'Still red.' },
    );
    const session = await open(api, dirs);
    expect((await submit(session, 'what is in shot.png?')).cause).toEqual({ kind: 'completed' });
    expect((await submit(session, 'and now?')).cause).toEqual({ kind: 'completed' });
    expect(mock.requests).toHaveLength(3);
    expect(resultOnWire[api](mock.requests[1]!.body)).toEqual(expected[api]);
    // Sent once per request, in the history of the next one too.
    expect(mock.requests[2]!.raw.split(data)).toHaveLength(2);
  });
});

describe('a resumed session', () => {
  it.each(['anthropic', 'chat'] as const)('keeps the image read_file returned (%s)', async (api) => {
    const dirs = testDirs();
    writeFileSync(path.join(dirs.cwd, 'shot.png'), png);
    mock.script({ toolCalls: [{ id: callId(api), name: 'read_file', args: { path: 'shot.png' } }] }, { text: 'Red.' });
    const first = await open(api, dirs);
    await submit(first, 'look at shot.png');
    // The transcript names the image; its bytes are in the session folder's images/.
    expect(readFileSync(first.paths.transcript, 'utf8')).not.toContain(data);
    expect(
      readdirSync(path.join(first.paths.dir, 'images')).map((name) =>
        readFileSync(path.join(first.paths.dir, 'images', name), 'utf8'),
      ),
    ).toEqual([data]);
    const result = first.session.messages()[2];
    await first.close();

    // Gone from the disk: what is sent again comes from the transcript.
    writeFileSync(path.join(dirs.cwd, 'shot.png'), 'overwritten');
    mock.script({ text: 'Still red.' });
    const second = await open(api, dirs, { continue: true });
    expect(second.warnings).toEqual([]);
    expect(second.session.messages()[2]).toEqual(result);
    expect(result).toMatchObject({ content: [{ type: 'tool_result', content: text, images: [{ type: 'image', data }] }] });
    await submit(second, 'and now?');
    const messages = mock.requests[2]!.body.messages;
    if (api === 'anthropic') {
      expect(messages[2]).toEqual({ role: 'user', content: expected.anthropic });
    } else {
      const tool = messages.findIndex((m: any) => m.role === 'tool');
      expect(messages.slice(tool, tool + 2)).toEqual(expected.chat);
    }
  });
});
