import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PromptInput } from '../../../src/ui/components/prompt-input.js';
import { usePromptEditor } from '../../../src/ui/bindings/use-prompt-editor.js';
import { KEY, frame, keys, mount, until } from '../harness.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-input-'));
  dirs.push(dir);
  return dir;
}

function Harness({
  sent,
  busy = false,
  queued = [],
  historyFile,
  root,
}: {
  sent: string[];
  busy?: boolean;
  queued?: string[];
  historyFile?: string;
  root?: string;
}) {
  const editor = usePromptEditor({ historyFile, root });
  return (
    <PromptInput
      line={editor.line}
      onKey={editor.onKey}
      onSubmit={() => {
        const text = editor.take();
        if (text.trim()) sent.push(text);
      }}
      menu={editor.menu}
      active
      busy={busy}
      queued={queued}
      width={80}
    />
  );
}

/** The input's text lines with the frame's border and prompt marks stripped. */
function inputText(text: string): string {
  const lines = text.split('\n').filter((l) => l.startsWith('│'));
  return lines.map((l) => l.replace(/^│ (›|…|↑| ) /, '').replace(/\s*│$/, '')).join('\n');
}

const ALT_ENTER = '\u001B\r';
const CTRL_U = '\u0015';
const CTRL_W = '\u0017';
const ALT_LEFT = '\u001B[1;3D';
const TAB = '\t';

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

  it('keeps the lines of a paste, and sends a typed line ending in Enter', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, 'first line\rsecond line');
    expect(inputText(frame(rendered))).toBe('first line\nsecond line');
    await keys(rendered, ' and more\r');
    expect(sent).toEqual(['first line\nsecond line and more']);
    // A bracketed paste: its Enter is a line break, never a send.
    await keys(rendered, '\u001B[200~', 'one\r', 'two', '\u001B[201~');
    expect(inputText(frame(rendered))).toBe('one\ntwo');
    expect(sent).toHaveLength(1);
  });

  it('starts a new line with Alt+Enter or a backslash before Enter', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, 'a', ALT_ENTER, 'b', '\\', KEY.enter, 'c');
    expect(inputText(frame(rendered))).toBe('a\nb\nc');
    await keys(rendered, KEY.up, KEY.up, KEY.ctrlE, '!', KEY.enter);
    expect(sent).toEqual(['a!\nb\nc']);
  });

  it('deletes words and to the line start; moves by words', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, 'git commit --amend', CTRL_W);
    expect(inputText(frame(rendered))).toBe('git commit --');
    await keys(rendered, ALT_LEFT, 'x');
    expect(inputText(frame(rendered))).toBe('git xcommit --');
    await keys(rendered, CTRL_U);
    expect(inputText(frame(rendered))).toBe('commit --');
  });

  it('goes back through sent prompts with ↑ and forward to the draft with ↓, kept per project across runs', async () => {
    const file = path.join(tempDir(), 'history', 'p.jsonl');
    const sent: string[] = [];
    const first = await mount(<Harness sent={sent} historyFile={file} />);
    await keys(first, 'one', KEY.enter, 'two\nlines', KEY.enter);
    first.unmount();
    expect(readFileSync(file, 'utf8')).toBe('"one"\n"two\\nlines"\n');

    const again = await mount(<Harness sent={sent} historyFile={file} />);
    await keys(again, 'draft', KEY.up);
    expect(inputText(frame(again))).toBe('two\nlines');
    // ↑ inside a multi-line entry moves up a line first, then to the older entry.
    await keys(again, KEY.up, KEY.up);
    expect(inputText(frame(again))).toBe('one');
    await keys(again, KEY.up);
    expect(inputText(frame(again))).toBe('one');
    await keys(again, KEY.down, KEY.down, KEY.down);
    expect(inputText(frame(again))).toBe('draft');
  });

  it('offers commands as you type a slash, filters them, completes with Tab and runs the chosen one on Enter', async () => {
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} />);
    await keys(rendered, '/');
    expect(frame(rendered)).toMatch(/\/help +keys and commands/);
    expect(frame(rendered)).toMatch(/\/agents/);
    await keys(rendered, 'co');
    expect(frame(rendered)).not.toContain('/help');
    expect(frame(rendered)).toMatch(/\/compact[\s\S]*\/cost/);
    await keys(rendered, KEY.down, TAB);
    expect(inputText(frame(rendered))).toBe('/cost');
    expect(frame(rendered)).not.toMatch(/\/compact/);
    await keys(rendered, KEY.ctrlA, KEY.ctrlE);
    // Esc closes the menu; Enter on a partial command runs the one shown.
    await keys(rendered, KEY.backspace, KEY.backspace, KEY.backspace);
    expect(frame(rendered)).toMatch(/\/compact/);
    await keys(rendered, KEY.escape);
    expect(frame(rendered)).not.toMatch(/\/compact/);
    await keys(rendered, 'm', KEY.enter);
    expect(sent).toEqual(['/compact']);
  });

  it('completes @ with the workspace files', async () => {
    const root = tempDir();
    mkdirSync(path.join(root, 'src'));
    writeFileSync(path.join(root, 'src', 'app.ts'), '');
    writeFileSync(path.join(root, 'src', 'apple.ts'), '');
    writeFileSync(path.join(root, 'README.md'), '');
    const sent: string[] = [];
    const rendered = await mount(<Harness sent={sent} root={root} />);
    await keys(rendered, 'look at @app');
    await until(() => frame(rendered).includes('src/app.ts'));
    expect(frame(rendered)).toContain('src/apple.ts');
    expect(frame(rendered)).not.toContain('README.md');
    await keys(rendered, TAB);
    expect(inputText(frame(rendered))).toBe('look at @src/app.ts');
    await keys(rendered, 'please', KEY.enter);
    expect(sent).toEqual(['look at @src/app.ts please']);
  });

  it('ignores Enter on an empty input and leaves control keys to others', async () => {
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
