import { describe, expect, it } from 'vitest';
import type { Reply } from '../support/mock-provider.js';
import { isChild, lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/**
 * The real binary in a real terminal (see test/support/tmux.ts): tmux runs `outrider`
 * against the mock provider, keys go in with send-keys, the screen comes back with capture-pane.
 */
const tui = useTui();

describe('the interactive TUI', () => {
  it('prints a startup error on one line and exits 2', async () => {
    const pane = tui.launch();
    await pane.screen(/\[exit status \d+\]/);
    // The wrapped line's first row may have scrolled off when the pane died: read the history too.
    const text = pane.capture({ history: true });
    expect(text).toContain('outrider: no API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY');
    expect(text).toContain('[exit status 2]');
  });

  it('shows a plain answer', async () => {
    const pane = await tui.start();
    tui.mock.script({ text: 'Hello from the mock model.' });
    pane.type('say hello');
    const text = await pane.screen(/Hello from the mock model\./);
    expect(text).toContain('› say hello');
  });

  it('opens with -p on the command line as an option value (--model -p): the headless bundle hands it over', async () => {
    // The launcher sends any `-p` to the CommonJS headless bundle; its ui/run.js stand-in hands
    // the options it parsed to the ES module bundle, which has the TUI: --debug says its line once.
    const pane = await tui.start({ args: ['--debug', '--model', '-p'] });
    expect((await pane.screen(/sandbox: /)).match(/sandbox: /g)).toHaveLength(1);
    tui.mock.script({ text: 'Hello from the handed-over TUI.' });
    pane.type('say hello');
    await pane.screen(/Hello from the handed-over TUI\./);
    expect(tui.mock.requests.at(-1)!.body.model).toBe('-p');
    // It quits as any TUI does; the headless bundle it came through writes its code cache at exit.
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again/);
    pane.key('C-c');
    await pane.screen(/\[exit status 0\]/);
  });

  it('shows a tool call and its result, then the answer', async () => {
    const pane = await tui.start();
    tui.mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: 'The file greets you.' });
    pane.type('what does hello.txt say?');
    const text = await pane.screen(/The file greets you\./);
    expect(text).toMatch(/● read_file hello\.txt/);
    expect(text).toMatch(/⎿ .*hi from the file/);
  });

  it('shows sub-agent rows and the status segment, the completion notice, then /agents', async () => {
    const pane = await tui.start();
    let childReplies = 0;
    // The children answer only once the test has seen them running: no delay to outlast.
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    tui.mock.respond(async (request): Promise<Reply> => {
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
    pane.type('investigate with two sub-agents');
    // The parent's answer and both live rows, on one screen (children answer once released).
    const busy = await pane.screen(/Two sub-agents are on it\.[\s\S]*sub-2 {2}thinking/);
    expect(busy).toMatch(/sub-1 {2}thinking… · \d+s · 0 tools · 0 tok/);
    expect(busy).toMatch(/subagents: 2 running \(oldest \d+s\)/);
    expect(busy.indexOf('sub-1  ')).toBeLessThan(busy.indexOf('sub-2  '));
    expect(busy).toContain('Two sub-agents are on it.');

    release();
    const done = await pane.screen(/◆ sub-2 finished/);
    expect(done).toContain('◆ sub-1 finished: find the config loader');
    expect(done).toMatch(/subagents: 2 done/);

    pane.type('/agents');
    const list = await pane.screen(/Sub-agents \(2\)/);
    expect(list).toMatch(/sub-1\s+done\s+explore.*find the config loader/);
    expect(list).toMatch(/sub-2\s+done\s+explore.*list the test helpers/);
    pane.key('Enter');
    // The job view: its header and its whole transcript, the answer last.
    const detail = await pane.screen(/── transcript[\s\S]*child answer \d/);
    expect(detail).toContain('Task: find the config loader');
    expect(detail).toMatch(/› Task:\nfind the config loader\nchild answer \d/);
  });

  it('Esc interrupts a slow reply and the app stays usable', async () => {
    const pane = await tui.start();
    // Four events (the first 12 characters of text), then the reply stalls until the client hangs up.
    tui.mock.script({
      text: 'Streaming slowly, one piece at a time, far too long to wait for.',
      fault: { kind: 'stall', afterChunks: 4 },
    });
    pane.type('tell me a long story');
    await pane.screen(/Streaming sl/);
    pane.key('Escape');
    await pane.screen(/interrupted/);
    tui.mock.script({ text: 'Still here after the interrupt.' });
    pane.type('are you there?');
    await pane.screen(/Still here after the interrupt\./);
  });

  it('Ctrl+C twice quits, stopping a running sub-agent', async () => {
    const pane = await tui.start();
    tui.mock.respond((request): Reply => {
      if (isChild(request)) return { fault: { kind: 'hang' } };
      if (lastUserText(request).includes('tool_result')) return { text: 'Started one.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'never finishes' } }] };
    });
    pane.type('start one that hangs');
    // Once the turn has ended: while it runs, Ctrl+C interrupts it instead.
    await pane.screen(/Started one\.[\s\S]*sub-1 {2}thinking… · \d+s/);
    pane.key('C-c');
    await pane.screen(/press Ctrl\+C again to quit/);
    pane.key('C-c');
    // The child's request hangs forever: the process can only exit if quitting stops it.
    await until(() => pane.dead(), { what: 'outrider to exit after the second Ctrl+C', observe: () => pane.capture() });
    await until(() => tui.mock.inFlight() === 0, {
      what: "the hanging child's request to be closed",
      observe: () => tui.mock.inFlight(),
    });
    const last = pane.capture();
    expect(last).toContain('[exit status 0]');
    expect(last).toMatch(/outrider --resume \S+/);
  });
});
