import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ModelRequest, ProviderError } from '../../src/core/providers/types.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession, settle } from './harness.js';

/** Issue 25 in the whole app on a real session: what a newcomer met, each with the keys they pressed. */
let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);

describe('a fast typist', () => {
  it('gets a new line from `\\` then Enter arriving in one chunk, as when typed key by key', async () => {
    const prompts: string[] = [];
    session = await openTestSession((request) => {
      prompts.push(lastText(request));
      return { text: 'Got both lines.' };
    });
    const { rendered, until } = await mountApp(session);
    // One read of the terminal: the text, the backslash and Enter together.
    rendered.stdin.write('first line \\\r');
    await settle();
    expect(prompts).toEqual([]);
    rendered.stdin.write('second line\r');
    await until(() => frame(rendered).includes('Got both lines.'));
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toContain('first line \\nsecond line');
    expect(prompts[0]).not.toContain('\\\\');
  });
});

describe('Ctrl+C on an idle app', () => {
  it('says what a quit stops only when something runs', async () => {
    session = await openTestSession([]);
    const { rendered } = await mountApp(session);
    await keys(rendered, KEY.ctrlC);
    const text = frame(rendered);
    expect(text).toContain('press Ctrl+C again to quit');
    expect(text).not.toContain('sub-agent');
  });
});

describe('--continue', () => {
  it("draws the earlier turns' error and interrupted lines again, and the cost goes on from where it stood", async () => {
    const first = await openTestSession([
      { text: 'A paid answer.', usage: { input: 20_000, output: 20_000 } },
      { error: new ProviderError('Anthropic refused the request (400): too odd') },
      { hang: true },
    ]);
    const dir = first.dir;
    const app = await mountApp(first);
    await keys(app.rendered, 'first', KEY.enter);
    await app.until(() => frame(app.rendered).includes('A paid answer.'));
    await keys(app.rendered, 'second', KEY.enter);
    await app.until(() => frame(app.rendered).includes('■ error: Anthropic refused the request (400): too odd'));
    await keys(app.rendered, 'third', KEY.enter);
    await app.until(() => frame(app.rendered).includes('Esc to interrupt'));
    await keys(app.rendered, KEY.escape);
    await app.until(() => frame(app.rendered).includes('■ interrupted'));
    const cost = /\$\d+\.\d\d/.exec(statusLine(frame(app.rendered)))![0];
    expect(cost).not.toBe('$0.00');
    app.rendered.unmount();
    await first.opened.close();

    session = await openTestSession([], { dir, continue: true });
    const { rendered } = await mountApp(session);
    const text = frame(rendered);
    expect(text).toMatch(/› second\n■ error: Anthropic refused the request \(400\): too odd/);
    expect(text).toMatch(/› third\n■ interrupted/);
    expect(statusLine(text)).toContain(cost);
  });
});

/** The footer's status line. */
function statusLine(text: string): string {
  return text.split('\n').find((line) => /^(default|accept-edits|plan|yolo) · /.test(line)) ?? '';
}

describe('/status and /export', () => {
  it('/status lists model, provider, mode, sandbox, MCP, session and version', async () => {
    session = await openTestSession([]);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/status', KEY.enter);
    const text = await until(() => frame(rendered).includes('Status') && frame(rendered));
    expect(text).toMatch(/ {2}model {6}claude-sonnet-5/);
    expect(text).toMatch(/ {2}provider {3}anthropic/);
    expect(text).toMatch(/ {2}mode {7}default \(Shift\+Tab changes it\)/);
    expect(text).toMatch(/ {2}sandbox {4}off/);
    expect(text).toMatch(/ {2}MCP {8}no servers/);
    expect(text).toContain(`  session    ${session.opened.session.id}`);
    expect(text).toMatch(/ {2}version {4}outrider \d+\.\d+\.\d+ · Node /);
  });

  it('/export writes the conversation as Markdown: prompts, answers, tool calls in words for people', async () => {
    session = await openTestSession([
      { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
      { text: 'It says **hi**.' },
    ]);
    writeFileSync(path.join(session.dir, 'notes.txt'), 'hi\n');
    const { rendered, until } = await mountApp(session);
    await keys(rendered, 'read notes', KEY.enter);
    await until(() => frame(rendered).includes('It says'));
    await keys(rendered, '/export talk.md', KEY.enter);
    await until(() => frame(rendered).includes('exported 4 messages to'));
    const markdown = readFileSync(path.join(session.dir, 'talk.md'), 'utf8');
    expect(markdown).toBe(
      [
        `# outrider session ${session.opened.session.id}`,
        '',
        '## You',
        '',
        'read notes',
        '',
        '- `read_file notes.txt` → 1\thi',
        '',
        'It says **hi**.',
        '',
      ].join('\n'),
    );
  });

  it("/diff lists the agent's edits this session, file by file, with their diffs", async () => {
    session = await openTestSession([
      { toolCalls: [{ name: 'edit_file', args: { path: 'a.txt', old_string: 'one', new_string: 'two' } }] },
      { toolCalls: [{ name: 'write_file', args: { path: 'b.txt', content: 'new file\n' } }] },
      { text: 'Changed both.' },
    ]);
    writeFileSync(path.join(session.dir, 'a.txt'), 'one\n');
    const { rendered, until } = await mountApp(session, {});
    await keys(rendered, '/diff', KEY.enter);
    await until(() => frame(rendered).includes('The agent has not written or edited a file in this session.'));
    session.ui.setPermissionMode('yolo');
    await keys(rendered, 'change them', KEY.enter);
    await until(() => frame(rendered).includes('Changed both.'));
    await keys(rendered, '/diff', KEY.enter);
    const text = await until(() => {
      const parts = frame(rendered).split('Changes this session');
      return parts.length === 3 && parts[2]!;
    });
    expect(text).toMatch(/^ {2}a\.txt\n {4}Edited a\.txt.*\n(?: {6}.*\n)* {6}-one\n {6}\+two/m);
    expect(text).toMatch(/^ {2}b\.txt\n {4}Created b\.txt/m);
  });

  it('/permissions lists the "allow always" answers, and removing one makes it ask again', async () => {
    session = await openTestSession([
      { toolCalls: [{ name: 'write_file', args: { path: 'one.txt', content: '1' } }] },
      { text: 'Wrote one.' },
      { toolCalls: [{ name: 'write_file', args: { path: 'two.txt', content: '2' } }] },
      { text: 'Wrote two.' },
    ]);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/permissions', KEY.enter);
    await until(() => frame(rendered).includes('No "allow always" answers in this session yet'));
    await keys(rendered, 'write one', KEY.enter);
    await until(() => frame(rendered).includes('Allow the agent to write one.txt (new file)?'));
    await keys(rendered, 'a');
    await until(() => frame(rendered).includes('Wrote one.'));
    await keys(rendered, '/permissions', KEY.enter);
    await until(() => frame(rendered).includes('  1. write_file (every call)'));
    await keys(rendered, '/permissions remove 1', KEY.enter);
    await until(() => frame(rendered).includes('removed: write_file (every call); it asks again'));
    await keys(rendered, 'write two', KEY.enter);
    await until(() => frame(rendered).includes('Allow the agent to write two.txt (new file)?'));
    await keys(rendered, 'y');
    await until(() => frame(rendered).includes('Wrote two.'));
  });

  it('/init has the agent read the repository and write AGENTS.md', async () => {
    const asked: string[] = [];
    session = await openTestSession((request) => {
      asked.push(lastText(request));
      if (lastText(request).includes('tool_result')) return { text: 'Wrote AGENTS.md.' };
      return { toolCalls: [{ name: 'write_file', args: { path: 'AGENTS.md', content: '# Agents\n\nRun npm test.\n' } }] };
    });
    session.ui.setPermissionMode('accept-edits');
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/init', KEY.enter);
    await until(() => frame(rendered).includes('Wrote AGENTS.md.'));
    expect(asked[0]).toContain('write AGENTS.md at its root');
    expect(readFileSync(path.join(session.dir, 'AGENTS.md'), 'utf8')).toContain('Run npm test.');
  });
});
