import { describe, expect, it } from 'vitest';
import { Markdown } from '../../../src/ui/markdown/markdown.js';
import { highlightCode } from '../../../src/ui/markdown/highlight.js';
import { frame, mount } from '../harness.js';

async function show(text: string, width = 60): Promise<string> {
  const rendered = await mount(<Markdown text={text} width={width} />);
  const out = frame(rendered);
  rendered.unmount();
  return out;
}

describe('markdown in the terminal', () => {
  it('renders headings, emphasis, inline code and links without their markup', async () => {
    const text = await show('# The title\n\nSome **bold**, _italic_ and `code`, see [the docs](https://example.com).', 80);
    expect(text).toBe('The title\n\nSome bold, italic and code, see the docs (https://example.com).');
    // A link whose text is its address is not repeated; prose wraps at the width.
    expect(await show('<https://example.com>')).toBe('https://example.com');
    expect((await show('word '.repeat(30), 40)).split('\n').every((line) => line.length <= 40)).toBe(true);
  });

  it('renders nested, numbered and task lists', async () => {
    const text = await show('- one\n- two\n  - nested\n\n3. third\n4. fourth\n\n- [x] done\n- [ ] todo');
    expect(text).toContain('• one\n• two\n  • nested');
    expect(text).toContain('3. third\n4. fourth');
    expect(text).toContain('• ☑ done\n• ☐ todo');
  });

  it('renders a table with aligned columns, cut to fit a narrow screen', async () => {
    const table = '| name | size |\n|---|--:|\n| a.ts | 12 |\n| b-long-name.ts | 3400 |';
    const text = await show(table);
    expect(text).toContain('name           │ size');
    expect(text).toContain('b-long-name.ts │ 3400');
    expect(text).toContain('   12');
    const narrow = await show('| a | b |\n|---|---|\n| ' + 'x'.repeat(40) + ' | ' + 'y'.repeat(40) + ' |', 30);
    for (const line of narrow.split('\n')) expect(Array.from(line).length).toBeLessThanOrEqual(30);
  });

  it('renders fenced code with its indentation, coloured by language (colours seen through the highlighter: tests run without a colour terminal)', async () => {
    const text = await show('```ts\nconst x: number = 1;\n  return x;\n```');
    expect(text).toBe('  const x: number = 1;\n    return x;');
    expect(highlightCode('const x = "s";', 'ts')[0]).toEqual([
      { text: 'const', color: 'magenta' },
      { text: ' x = ' },
      { text: '"s"', color: 'green' },
      { text: ';' },
    ]);
  });

  it('highlights the common languages and leaves unknown ones plain', () => {
    expect(highlightCode('def f():\n  return 1', 'py')[0]![0]).toEqual({ text: 'def', color: 'magenta' });
    expect(
      highlightCode('echo "hi"', 'sh')
        .flat()
        .some((s) => s.color === 'green'),
    ).toBe(true);
    expect(highlightCode('a < b && c', 'nosuchlang')).toEqual([[{ text: 'a < b && c' }]]);
    expect(
      highlightCode('x = "<&>"', 'js')
        .flat()
        .map((s) => s.text)
        .join(''),
    ).toBe('x = "<&>"');
  });

  it('renders quotes and rules', async () => {
    const text = await show('> a quote\n\n---\n\nafter');
    expect(text).toMatch(/┃ a quote/);
    expect(text).toContain('─'.repeat(40));
  });
});
