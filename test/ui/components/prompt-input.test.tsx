import { describe, expect, it } from 'vitest';
import { PromptInput } from '../../../src/ui/components/prompt-input.js';
import { useLineEditor } from '../../../src/ui/hooks/use-line-editor.js';
import { KEY, frame, keys, mount } from '../harness.js';

function Harness({ sent, busy = false, queued = [] }: { sent: string[]; busy?: boolean; queued?: string[] }) {
  const editor = useLineEditor();
  return (
    <PromptInput
      line={editor.line}
      onEdit={editor.edit}
      onSubmit={() => {
        const text = editor.take();
        if (text.trim()) sent.push(text);
      }}
      active
      busy={busy}
      queued={queued}
      width={80}
    />
  );
}

/** The input line's text with the frame's border and prompt stripped. */
function inputText(text: string): string {
  const line = text.split('\n').find((l) => l.includes('› ') || l.includes('… ')) ?? '';
  return line.replace(/^│ (›|…) /, '').replace(/\s*│$/, '');
}

describe('the prompt input', () => {
  it('inserts printable keys, deletes with Backspace and submits on Enter', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, 'h', 'e', 'l', 'l', 'o', 'o', KEY.backspace);
    expect(inputText(frame(rendered))).toBe('hello');
    await keys(rendered, KEY.enter);
    expect(sent).toEqual(['hello']);
    expect(inputText(frame(rendered))).toBe('');
  });

  it('moves with ←/→ and Ctrl+A/Ctrl+E and edits at the cursor', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(
      rendered,
      'w',
      'r',
      'l',
      'd',
      KEY.left,
      KEY.left,
      KEY.left,
      'o',
      KEY.ctrlA,
      'h',
      'e',
      'l',
      'l',
      'o',
      ' ',
      KEY.ctrlE,
      '!',
    );
    await keys(rendered, KEY.left, KEY.right, '?');
    expect(inputText(frame(rendered))).toBe('hello world!?');
    await keys(rendered, KEY.ctrlA, KEY.backspace, KEY.right, KEY.backspace, KEY.enter);
    expect(sent).toEqual(['ello world!?']);
  });

  it('takes a pasted chunk whole, and a typed line ending in Enter as a submit', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, 'first line\nsecond line');
    expect(inputText(frame(rendered))).toBe('first line second line');
    await keys(rendered, KEY.ctrlA, 'x', KEY.ctrlE, ' and more\r');
    expect(sent).toEqual(['xfirst line second line and more']);
  });

  it('ignores Enter on an empty line and leaves control keys to others', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, KEY.enter, KEY.ctrlC, KEY.ctrlK, KEY.escape, KEY.up, '\t');
    expect(sent).toEqual([]);
    expect(inputText(frame(rendered))).toBe('');
  });

  it('shows prompts queued behind a running turn', async () => {
    const rendered = await mount(<Harness sent={[]} busy queued={['next question']} />);
    const text = frame(rendered);
    expect(text).toContain('queued: next question');
    expect(text).toContain('│ … ');
  });
});
