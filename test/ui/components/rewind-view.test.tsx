import { describe, expect, it } from 'vitest';
import type { RewindMode, RewindPoint } from '../../../src/core/index.js';
import { RewindView } from '../../../src/ui/components/rewind-view.js';
import { UNTRACKED_NOTE } from '../../../src/ui/state/rewind-lines.js';
import { KEY, frame, keys, mount } from '../harness.js';

const points: RewindPoint[] = [
  { index: 0, text: 'make a', files: ['a.txt', 'notes.txt'] },
  { index: 4, text: 'make b', files: ['b.txt'] },
  { index: 8, text: 'just a question', files: [] },
];

async function view(list: readonly RewindPoint[] = points, maxLines?: number) {
  const chosen: [number, RewindMode][] = [];
  const closed = { count: 0 };
  const rendered = await mount(
    <RewindView
      points={list}
      width={100}
      active
      {...(maxLines ? { maxLines } : {})}
      onChoose={(index, mode) => chosen.push([index, mode])}
      onClose={() => (closed.count += 1)}
    />,
  );
  return { rendered, chosen, closed };
}

describe('RewindView', () => {
  it('lists the earlier prompts newest last, the newest chosen, with the files changed since each', async () => {
    const { rendered } = await view();
    const lines = frame(rendered).split('\n');
    const at = (text: string) => lines.findIndex((line) => line.includes(text));
    expect(at('Rewind: go back to before which prompt?')).toBeLessThan(at('make a'));
    expect(at('make a')).toBeLessThan(at('make b'));
    expect(at('make b')).toBeLessThan(at('just a question'));
    expect(lines[at('make a')]).toContain('  make a · 2 files changed since');
    expect(lines[at('just a question')]).toContain('› just a question');
    expect(lines[at('just a question')]).not.toContain('changed since');
    expect(frame(rendered)).toContain('↑/↓ choose · Enter picks · Esc closes');
  });

  it('↑ then Enter offers the four choices for that prompt; Enter on one rewinds to it that way', async () => {
    const { rendered, chosen } = await view();
    await keys(rendered, KEY.up, KEY.up, KEY.enter);
    const text = frame(rendered);
    expect(text).toContain('Rewind to before "make a"');
    expect(text).toContain('2 files the agent changed since then: a.txt, notes.txt');
    expect(text).toMatch(
      /› Restore code and conversation.*\n.* {3}Restore conversation.*\n.* {3}Restore code.*\n.* {3}Never mind/,
    );
    expect(text.replace(/[│\n ]+/g, ' ')).toContain(UNTRACKED_NOTE.replace(/\s+/g, ' '));
    await keys(rendered, KEY.down, KEY.down, KEY.enter);
    expect(chosen).toEqual([[0, 'code']]);
  });

  it('the first choice restores code and conversation; "never mind" and Esc close without a choice', async () => {
    const first = await view();
    await keys(first.rendered, KEY.enter, KEY.enter);
    expect(first.chosen).toEqual([[8, 'code-and-conversation']]);
    expect(frame(first.rendered)).toContain('No file edits by the agent were recorded since then.');

    const never = await view();
    await keys(never.rendered, KEY.enter, KEY.down, KEY.down, KEY.down, KEY.down, KEY.enter);
    expect(never.chosen).toEqual([]);
    expect(never.closed.count).toBe(1);

    // Esc in the choices goes back to the list; Esc in the list closes.
    const esc = await view();
    await keys(esc.rendered, KEY.enter, KEY.escape);
    expect(frame(esc.rendered)).toContain('Rewind: go back to before which prompt?');
    expect(esc.closed.count).toBe(0);
    await keys(esc.rendered, KEY.escape);
    expect(esc.closed.count).toBe(1);
  });

  it('keys that arrive in one chunk act in order, and the selection stays within the list', async () => {
    const { rendered, chosen } = await view();
    await keys(rendered, `${KEY.down}${KEY.down}${KEY.up}${KEY.up}${KEY.up}${KEY.up}${KEY.up}${KEY.down}`);
    await keys(rendered, `${KEY.enter}${KEY.down}${KEY.enter}`);
    expect(chosen).toEqual([[4, 'conversation']]);
  });

  it('shows a window of prompts around the selection when the screen is short, and escapes what a prompt holds', async () => {
    const many = Array.from({ length: 30 }, (_, i): RewindPoint => ({ index: i * 2, text: `prompt ${i}`, files: [] }));
    many.push({ index: 60, text: 'evil \u001b[2J\u001b]0;title\u0007 end', files: ['x\u001b[31m.txt'] });
    const { rendered } = await view(many, 8);
    const text = frame(rendered);
    expect(text).toContain('› evil');
    expect(text).not.toContain('\u001b[2J');
    expect(text).not.toContain('prompt 0\n');
    expect(text.split('\n').filter((line) => /prompt \d+/.test(line))).toHaveLength(3);
    await keys(rendered, KEY.enter);
    expect(frame(rendered)).not.toContain('\u001b[31m');
    expect(frame(rendered)).toContain('x\\u{1b}[31m.txt');
  });
});
