import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../support/mock-provider.js';
import { capture, key, launch, paneDead, screen, tmux, type, useTuiPanes } from '../support/tui-pane.js';
import { until } from '../support/until.js';

/**
 * The real binary in a real terminal (test/support/tui-pane.ts): tmux runs `outrider` against
 * the mock provider, keys go in with send-keys, and the screen comes back with capture-pane.
 */
let mock: MockProvider;
useTuiPanes();

beforeAll(async () => {
  mock = await startMockProvider();
});

afterAll(async () => {
  await mock.close();
});

afterEach(() => {
  mock.reset();
});

/** Starts outrider in a fresh 120×40 pane and waits until it is ready for input. */
async function start(): Promise<string> {
  const name = launch([`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${mock.anthropicBaseURL}`], {
    files: { 'hello.txt': 'hi from the file\n' },
  });
  await screen(name, /\/help/);
  return name;
}

const isChild = (request: RecordedRequest) => request.raw.includes('You are a sub-agent started by another agent');
const lastUserText = (request: RecordedRequest) => {
  const messages = request.body?.messages ?? [];
  return JSON.stringify(messages[messages.length - 1] ?? {});
};

describe('the interactive TUI', () => {
  it('prints a startup error on one line and exits 2', async () => {
    const pane = launch([]);
    await screen(pane, /\[exit status \d+\]/);
    // The wrapped line's first row may have scrolled off when the pane died: read the history too.
    const text = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', pane);
    expect(text).toContain('outrider: no API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY');
    expect(text).toContain('[exit status 2]');
  });

  it('shows a plain answer', async () => {
    const pane = await start();
    mock.script({ text: 'Hello from the mock model.' });
    type(pane, 'say hello');
    const text = await screen(pane, /Hello from the mock model\./);
    expect(text).toContain('› say hello');
  });

  it('shows a tool call and its result, then the answer', async () => {
    const pane = await start();
    mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: 'The file greets you.' });
    type(pane, 'what does hello.txt say?');
    const text = await screen(pane, /The file greets you\./);
    expect(text).toMatch(/● read_file hello\.txt/);
    expect(text).toMatch(/⎿ .*hi from the file/);
  });

  it('shows sub-agent rows and the status segment, the completion notice, then /agents', async () => {
    const pane = await start();
    let childReplies = 0;
    // The children answer only once the test has seen them running: no delay to outlast.
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        const n = (childReplies += 1);
        await released;
        return { text: `child answer ${n}` };
      }
      if (lastUserText(request).includes('tool_result')) return { text: 'Two sub-agents are on it.' };
      return {
        toolCalls: [
          { name: 'agent_start', args: { task: 'find the config loader' } },
          { name: 'agent_start', args: { task: 'list the test helpers' } },
        ],
      };
    });
    type(pane, 'investigate with two sub-agents');
    // The parent's answer and both live rows, on one screen (children answer 2.5 s later).
    const busy = await screen(pane, /Two sub-agents are on it\.[\s\S]*sub-2 {2}.*running/);
    expect(busy).toMatch(/sub-1 {2}.*running \d+s · 0 tools/);
    expect(busy).toMatch(/subagents: 2 running \(oldest \d+s\)/);
    expect(busy.indexOf('sub-1  ')).toBeLessThan(busy.indexOf('sub-2  '));
    expect(busy).toContain('Two sub-agents are on it.');

    release();
    const done = await screen(pane, /◆ sub-2 finished/);
    expect(done).toContain('◆ sub-1 finished: find the config loader');
    expect(done).toMatch(/subagents: 2 done/);

    type(pane, '/agents');
    const list = await screen(pane, /Sub-agents \(2\)/);
    expect(list).toMatch(/sub-1\s+done\s+explore.*find the config loader/);
    expect(list).toMatch(/sub-2\s+done\s+explore.*list the test helpers/);
    key(pane, 'Enter');
    const detail = await screen(pane, /Result:/);
    expect(detail).toContain('Task: find the config loader');
    expect(detail).toMatch(/child answer \d/);
  });

  it('Esc interrupts a slow reply and the app stays usable', async () => {
    const pane = await start();
    // Four events (the first 12 characters of text), then the reply stalls until the client hangs up.
    mock.script({
      text: 'Streaming slowly, one piece at a time, far too long to wait for.',
      fault: { kind: 'stall', afterChunks: 4 },
    });
    type(pane, 'tell me a long story');
    await screen(pane, /Streaming sl/);
    key(pane, 'Escape');
    await screen(pane, /interrupted/);
    mock.script({ text: 'Still here after the interrupt.' });
    type(pane, 'are you there?');
    await screen(pane, /Still here after the interrupt\./);
  });

  it('Ctrl+C twice quits, stopping a running sub-agent', async () => {
    const pane = await start();
    mock.respond((request): Reply => {
      if (isChild(request)) return { fault: { kind: 'hang' } };
      if (lastUserText(request).includes('tool_result')) return { text: 'Started one.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'never finishes' } }] };
    });
    type(pane, 'start one that hangs');
    await screen(pane, /sub-1 {2}thinking… {2}running/);
    key(pane, 'C-c');
    await screen(pane, /press Ctrl\+C again to quit/);
    key(pane, 'C-c');
    // The child's request hangs forever: the process can only exit if quitting stops it.
    await until(() => paneDead(pane), { what: 'outrider to exit after the second Ctrl+C', observe: () => capture(pane) });
    await until(() => mock.inFlight() === 0, {
      what: "the hanging child's request to be closed",
      observe: () => mock.inFlight(),
    });
    const last = capture(pane);
    expect(last).toContain('[exit status 0]');
    expect(last).toMatch(/outrider --resume \S+/);
  });
});
