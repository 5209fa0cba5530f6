import { createServer } from 'node:net';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { runCli } from '../support/run-cli.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';

/**
 * What a newcomer met in the first 35 minutes (issue 25), in the built binary under tmux
 * against the mock provider: each flow as they typed it.
 */
const tui = useTui();

/** The status line, the footer's first line (`default · model · ctx …`). */
const statusLine = (screen: string) => screen.split('\n').find((line) => /^(default|accept-edits|plan|yolo) · /.test(line)) ?? '';

describe('a bash command running in the foreground', () => {
  it('says Ctrl+B moves it; once moved, its job keeps its time and the footer counts it as a shell', async () => {
    const pane = await tui.start({ args: ['--yolo'] });
    tui.mock.respond((request: RecordedRequest): Reply => {
      const last = lastUserText(request);
      if (last.includes('moved to background as sh-1')) return { text: 'the build goes on as sh-1' };
      if (last.includes('run the long build')) return { toolCalls: [{ name: 'bash', args: { command: 'sleep 120' } }] };
      return { text: `unexpected: ${last.slice(0, 120)}` };
    });
    pane.type('run the long build');
    await pane.screen(/running bash [3-9]s · Ctrl\+B to run in background · turn \d+s · /, {
      timeoutMs: 20_000,
    });
    pane.key('C-b');
    await pane.screen(/the build goes on as sh-1/);
    const screen = await pane.screen(/^sh-1 {2}sleep 120 · \d+s/m);
    // Its time counts from the command's start, not from the move (3 s at least had passed).
    expect(Number(/^sh-1 {2}sleep 120 · (\d+)s/m.exec(screen)![1])).toBeGreaterThanOrEqual(3);
    expect(statusLine(screen)).toContain('shells: 1 running');
    expect(statusLine(screen)).not.toContain('subagents');
  });
});

describe('an approval', () => {
  it('asks a question, and Esc denies and ends the turn: the model waits for what the user says instead', async () => {
    const pane = await tui.start();
    tui.mock.respond((request: RecordedRequest): Reply => {
      const last = lastUserText(request);
      if (last.includes('name it other.txt')) return { text: 'Understood, other.txt then.' };
      if (last.includes('tool_result')) return { text: 'Wrote notes.txt (or was told not to).' };
      return { toolCalls: [{ name: 'write_file', args: { path: 'notes.txt', content: 'hello' } }] };
    });
    pane.type('write notes');
    await pane.screen(/Allow the agent to write notes\.txt \(new file\)\?/);
    await pane.screen(/n\/Esc deny and stop/);
    pane.key('Escape');
    const stopped = await pane.screen(/■ interrupted/);
    expect(stopped).toContain('denied: write notes.txt (new file) · the turn stopped: tell the agent what to do instead');
    expect(stopped).not.toContain('Wrote notes.txt (or was told not to).');
    expect(tui.mock.requests).toHaveLength(1);
    pane.type('name it other.txt');
    await pane.screen(/Understood, other\.txt then\./);
    expect(readdirSync(pane.project)).not.toContain('notes.txt');
  });
});

describe('the working line while text streams', () => {
  it('labels its time and counts the tokens written so far', async () => {
    const pane = await tui.start();
    tui.mock.script({
      text: 'A reply that streams one slow piece at a time, for a long while, word after word after word.',
      fault: { kind: 'stall', afterChunks: 6 },
    });
    pane.type('talk slowly');
    const screen = await pane.screen(/writing · turn \d+s · ↓ \d+ tokens · Esc to interrupt/);
    expect(screen).not.toMatch(/writing \d+s · \d+s/);
    pane.key('Escape');
    await pane.screen(/■ interrupted/);
  });

  it('shows an open code block as code, never its fence', async () => {
    const pane = await tui.start();
    tui.mock.script({
      text: 'Here it is:\n\n```ts\nconst answer = 42;\nconsole.log(answer);\n```\n\nDone.',
      // The fence and its first line, then nothing: the block stays open on the screen.
      fault: { kind: 'stall', afterChunks: 9 },
    });
    pane.type('show code');
    const screen = await pane.screen(/^ {2}const answer = 42;/m);
    expect(screen).not.toContain('```');
    pane.key('Escape');
    await pane.screen(/■ interrupted/);
  });
});

describe('long lines below 120 columns', () => {
  it('wrap an answer without a row that starts with a space, and /help with a hanging indent', async () => {
    const pane = await tui.start({ width: 71, height: 50 });
    // Nine words of seven letters and their eight spaces fill 71 columns exactly: every row does.
    const words = Array.from({ length: 120 }, (_, i) => `w${String(i).padStart(6, '0')}`).join(' ');
    tui.mock.script({ text: words });
    pane.type('a long answer');
    const screen = await pane.screen(/w000119/);
    const rows = screen.split('\n').filter((row) => /w\d{6}/.test(row));
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) expect(row).not.toMatch(/^ /);

    pane.type('/help');
    const help = await pane.screen(/Ctrl\+K +stop every/, { history: true });
    const lines = help.split('\n');
    const at = lines.findIndex((line) => /^ {2}Ctrl\+K +stop every/.test(line));
    const column = lines[at]!.indexOf('stop every');
    // The description's next row starts under it, not at column 0.
    expect(lines[at + 1]!.slice(0, column).trim()).toBe('');
    expect(lines[at + 1]![column]).toMatch(/\S/);
  });
});

describe('sub-agents as a newcomer sees them', () => {
  it('one line per start, rows that name the task, and no tool names in what the model was told', async () => {
    const pane = await tui.start();
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (isChild(request)) return { text: 'child done', delayMs: 60_000 };
      const last = lastUserText(request);
      if (last.includes('tool_result')) return { text: 'Started one.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'map the config loader' } }] };
    });
    pane.type('delegate');
    const screen = await pane.screen(/Started one\.[\s\S]*^sub-1 {2}.* · map the config loader/m);
    expect(screen).toMatch(/● started sub-1 · explore · "map the config loader"/);
    expect(screen).not.toMatch(/agent_start "map/);
    expect(screen).not.toContain('Call agent_poll');
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again to quit \(stops 1 sub-agent\)/);
  });
});

describe('a sub-agent that finishes while the answer streams', () => {
  it('has its line committed after that answer, not between the prompt and it', async () => {
    const pane = await tui.start();
    let childDone = false;
    tui.mock.respond((request: RecordedRequest): Reply => {
      if (isChild(request)) {
        childDone = true;
        return { text: 'child done', delayMs: 300 };
      }
      const last = lastUserText(request);
      if (last.includes('completed')) return { text: 'Noted the child.' };
      if (last.includes('tool_result'))
        return { text: `Streaming the answer ${'slowly '.repeat(40)}and the answer ends here.`, chunkDelayMs: 60 };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'finish fast' } }] };
    });
    pane.type('delegate and talk');
    const screen = await pane.screen(/Noted the child\./, { history: true, timeoutMs: 30_000 });
    expect(childDone).toBe(true);
    const answer = screen.indexOf('the answer ends here.');
    const finished = screen.indexOf('◆ sub-1 finished: finish fast');
    expect(answer).toBeGreaterThan(-1);
    expect(finished).toBeGreaterThan(answer);
    expect(screen.indexOf('› delegate and talk')).toBeLessThan(screen.indexOf('Streaming the answer'));
  });
});

describe('a refused connection', () => {
  it('names ANTHROPIC_BASE_URL, where the URL came from, beside the flag', async () => {
    const port = await closedPort();
    const pane = tui.launch({
      variables: ['ANTHROPIC_API_KEY=test', `ANTHROPIC_BASE_URL=http://127.0.0.1:${port}`],
    });
    await pane.screen(/\/help/);
    pane.type('hello');
    const screen = await pane.screen(/ANTHROPIC_BASE_URL/, { timeoutMs: 20_000 });
    expect(screen.replace(/\n/g, ' ')).toMatch(/set by --base-url, the baseURL setting or\s+ANTHROPIC_BASE_URL/);
  });
});

describe('/resume with the start of an id', () => {
  it('switches to the one other session it names, though the current one starts alike', async () => {
    const first = await tui.start();
    tui.mock.script({ text: 'The first answer.' });
    first.type('the first question');
    await first.screen(/The first answer\./);
    first.key('C-c');
    await first.screen(/press Ctrl\+C again/);
    first.key('C-c');
    const firstId = /outrider --resume (\S+)/.exec(await first.screen(/outrider --resume (\S+)/))![1]!;

    const second = tui.launch({ home: first.home, project: first.project, variables: tui.providerVariables() });
    await second.screen(/\/help/);
    tui.mock.script({ text: 'The second answer.' });
    second.type('the second question');
    await second.screen(/The second answer\./);
    // The ids of two sessions a moment apart share their start; the current one is not a choice.
    second.type(`/resume ${firstId.slice(0, 4)}`);
    const switched = await second.screen(/resumed \S+: the model remembers 2 earlier messages/);
    expect(switched).toContain('The first answer.');
    expect(switched).not.toContain('is this session');
  });
});

describe('headless text mode', () => {
  it('says on stderr that a write was denied, and which flag allows it', async () => {
    const project = tui.tempDir('outrider-project-');
    const home = tui.tempDir('outrider-home-');
    tui.mock.script({ toolCalls: [{ name: 'write_file', args: { path: 'a.txt', content: 'x' } }] }, { text: 'could not write' });
    const result = await runCli(['-p', 'write a.txt'], {
      cwd: project,
      env: { OUTRIDER_HOME: home, ANTHROPIC_API_KEY: 'test', ANTHROPIC_BASE_URL: tui.mock.anthropicBaseURL },
    });
    expect(result.stdout).toContain('could not write');
    expect(result.stderr).toMatch(/^outrider: .*write_file.*--permission-mode accept-edits/m);
    expect(readdirSync(project)).not.toContain('a.txt');
  });
});

/** A port nothing listens on: taken, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
