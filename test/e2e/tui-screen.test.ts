import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { type Pane, isChild, lastUserText, useTui } from '../support/tmux.js';
import { until } from '../support/until.js';

/** The terminal itself: resizes, short screens, keys typed before the app is ready. */
const tui = useTui();

/** The parent starts `count` sub-agents that run until stopped, and says so (or keeps thinking, with `busy`). */
function hangingJobs(count: number, options: { busy?: boolean } = {}) {
  return (request: RecordedRequest): Reply => {
    if (isChild(request)) return { fault: { kind: 'hang' } };
    if (lastUserText(request).includes('tool_result'))
      return options.busy ? { fault: { kind: 'hang' } } : { text: `${count} started.` };
    return {
      toolCalls: Array.from({ length: count }, (_, i) => ({ name: 'agent_start', args: { task: `task number ${i + 1}` } })),
    };
  };
}

const count = (text: string, pattern: RegExp) => text.match(new RegExp(pattern.source, `${pattern.flags}g`))?.length ?? 0;

/** Waits until two captures 150 ms apart agree (the app redraws once after a resize settles). */
function stable(pane: Pane): Promise<string> {
  let last: string | undefined;
  return until(
    () => {
      const now = pane.capture({ history: true });
      const still = now === last;
      last = now;
      return still && now;
    },
    { what: 'the screen to settle', intervalMs: 150, observe: () => last },
  );
}

describe('the terminal', () => {
  it('leaves no stale copies of the live area when the terminal narrows or widens while rows are live', async () => {
    const pane = await tui.start();
    tui.mock.respond(hangingJobs(2));
    pane.type('start two');
    await pane.screen(/sub-2 .*thinking/);
    for (const width of [60, 40, 100]) {
      pane.resize(width, 40);
      await pane.screen(new RegExp(`^╭─{${width - 2}}╮$`, 'm'));
      // Ink's own redraw at the new width comes first and leaves stale copies; the app's redraw
      // once the width settles removes them. Wait for it (a deadline, not a pause): copies left
      // for good fail here.
      let seen = '';
      await until(
        () => {
          seen = pane.capture({ history: true });
          return count(seen, /╭─+╮/) === 1 && count(seen, /^sub-1 /m) === 1 && count(seen, /^sub-2 /m) === 1;
        },
        { what: 'one copy of the live area', observe: () => seen },
      );
      const all = await stable(pane);
      // Everything the terminal holds, scrollback included: one input box, one footer, one row each.
      expect(count(all, /╭─+╮/), all).toBe(1);
      expect(count(all, /^sub-1 /m), all).toBe(1);
      expect(count(all, /^sub-2 /m), all).toBe(1);
      expect(count(all, /^default · /m), all).toBe(1);
      expect(count(all, /› start two/), all).toBe(1);
      expect(count(all, /2 started\./), all).toBe(1);
    }
  });

  it('fits the live area to a short terminal: rows collapse, and redraws never clear the screen or the scrollback', async () => {
    const pane = await tui.start({ width: 100, height: 14, args: ['--max-agents', '8'] });
    const story = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of the story`).join('\n');
    tui.mock.script({ text: story });
    pane.type('tell me a story');
    await pane.screen(/line 12 of the story/);
    // The parent keeps working meanwhile: its working line, eight rows, the input and the footer are taller than the screen.
    tui.mock.respond(hangingJobs(8, { busy: true }));
    pane.type('start eight');
    // More than 3 in one turn (agents.approve): asked once, allowed.
    await pane.screen(/Allow the agent to start 8 sub-agents this turn\?/);
    pane.key('y');
    const busy = await pane.screen(/\+\d+ more running/);
    expect(busy).toMatch(/^sub-1 /m);
    // Several redraws: elapsed times move every second, so a row at 3s has been redrawn a few times.
    await pane.screen(/^sub-1 .*· [3-9]s/m);
    const screen = pane.capture();
    expect(screen.trimEnd().split('\n').at(-1)).toMatch(/Esc interrupt/);
    expect(screen).toMatch(/subagents|running/);
    const bytes = pane.output();
    expect(bytes).not.toContain('\u001B[2J');
    expect(bytes).not.toContain('\u001B[3J');
    const all = pane.capture({ history: true });
    expect(count(all, /› tell me a story/), all).toBe(1);
    expect(count(all, /line 1 of the story/), all).toBe(1);
    expect(count(all, /Esc interrupt/), all).toBe(1);

    // A shorter screen still: fewer rows, one clean copy of everything.
    pane.resize(100, 10);
    await pane.screen(/^sub-1 [\s\S]*\+\d+ more running/m);
    const after = await stable(pane);
    expect(count(after, /› tell me a story/), after).toBe(1);
    expect(count(after, /› start eight/), after).toBe(1);
    expect(count(after, /Esc interrupt/), after).toBe(1);
    expect(count(after, /^sub-1 /m), after).toBe(1);
  });

  it('keeps what is typed during start-up and sends it once the app is ready', async () => {
    tui.mock.script({ text: 'Heard you early.' });
    // Held just after the terminal goes raw, so the keys certainly come before the app is ready.
    const pane = tui.launch({
      variables: [`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${tui.mock.anthropicBaseURL}`],
      held: true,
    });
    // Raw mode is on from the CLI's first moments: from then on, keys are held for the app.
    await until(() => pane.raw(), { what: 'the terminal in raw mode', observe: () => pane.capture() });
    pane.type('hello early');
    expect(pane.capture()).not.toContain('/help');
    await pane.release();
    const text = await pane.screen(/Heard you early\./, { history: true });
    expect(text).toContain('› hello early');
    // Not echoed above the header: the first line is the app's own.
    const lines = text.split('\n').filter((line) => line.trim() !== '');
    expect(lines[0]).toMatch(/^outrider · /);
    expect(count(text, /hello early/)).toBe(1);
    expect(JSON.stringify(tui.mock.requests[0]!.body.messages)).toContain('hello early');
  });
});
