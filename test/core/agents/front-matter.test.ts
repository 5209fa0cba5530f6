import { describe, expect, it } from 'vitest';
import { parseFrontMatter } from '../../../src/core/agents/front-matter.js';

function valuesOf(frontMatter: string): Record<string, unknown> {
  const result = parseFrontMatter(`---\n${frontMatter}\n---\nPrompt.\n`);
  if (!result.ok) throw new Error(`expected to parse, got: ${result.error}`);
  return result.data;
}

function errorOf(frontMatter: string): string {
  const result = parseFrontMatter(`---\n${frontMatter}\n---\nPrompt.\n`);
  if (result.ok) throw new Error(`expected an error, got ${JSON.stringify(result.data)}`);
  return result.error;
}

describe('parseFrontMatter: the block around it', () => {
  it('splits the front matter from the trimmed body', () => {
    const result = parseFrontMatter('\uFEFF---\r\nname: x\r\n---\r\n\r\n  You are x.\r\nLine two.\r\n\r\n');
    expect(result).toEqual({ ok: true, data: { name: 'x' }, body: 'You are x.\nLine two.' });
  });

  it('keeps "---" inside the body, and accepts "..." as the closing line', () => {
    expect(parseFrontMatter('---\nname: x\n---\nabove\n---\nbelow')).toMatchObject({ ok: true, body: 'above\n---\nbelow' });
    expect(parseFrontMatter('---\nname: x\n...\nbody')).toEqual({ ok: true, data: { name: 'x' }, body: 'body' });
  });

  it('refuses a file without front matter or with an unclosed one', () => {
    expect(parseFrontMatter('# Just markdown\n\nname: x')).toEqual({
      ok: false,
      error: 'no front matter: the file must start with a line "---", then fields such as "name: …", then "---"',
    });
    expect(parseFrontMatter('---\nname: x\ndescription: y\nbody')).toEqual({
      ok: false,
      error: 'front matter opened on line 1 is never closed: add a line "---" after the fields',
    });
  });

  it('reads an empty block as no fields, and refuses one that is not fields', () => {
    expect(valuesOf('')).toEqual({});
    expect(valuesOf('# only a comment')).toEqual({});
    expect(errorOf('- a\n- b')).toBe('the front matter must be fields such as "name: reviewer", one per line');
    expect(errorOf('just a sentence')).toBe('the front matter must be fields such as "name: reviewer", one per line');
  });
});

describe('parseFrontMatter: YAML', () => {
  it('reads plain, quoted, numeric, boolean and null scalars (YAML 1.2: yes and no are text)', () => {
    expect(
      valuesOf(
        [
          'plain: hello world',
          'double: "a \\"quoted\\" value\\twith\\nescapes \\u00e9"',
          "single: 'it''s # not a comment'",
          'int: 42',
          'negative: -3',
          'float: 1.5',
          'yes: true',
          'no: False',
          'word: yes',
          'nothing: ~',
          'empty:',
          'version: 1.2.3',
          'date: 2024-01-01',
        ].join('\n'),
      ),
    ).toEqual({
      plain: 'hello world',
      double: 'a "quoted" value\twith\nescapes é',
      single: "it's # not a comment",
      int: 42,
      negative: -3,
      float: 1.5,
      yes: true,
      no: false,
      word: 'yes',
      nothing: null,
      empty: null,
      version: '1.2.3',
      date: '2024-01-01',
    });
  });

  it('drops comments: whole lines and after whitespace in plain scalars, not inside words or quotes', () => {
    expect(
      valuesOf(
        [
          '# a comment',
          'a: value # trailing',
          '  # indented comment',
          'b: issue#3',
          'c: "x # y"  # after',
          'd: [a, b] # list',
        ].join('\n'),
      ),
    ).toEqual({ a: 'value', b: 'issue#3', c: 'x # y', d: ['a', 'b'] });
  });

  it('reads flow lists, with quotes, numbers, a trailing comma and spread over lines', () => {
    expect(
      valuesOf(
        ['a: [read_file, grep, "glob", \'list_dir\']', 'b: []', 'c: [1, two, true,]', 'd: [read_file,', '    grep]'].join('\n'),
      ),
    ).toEqual({ a: ['read_file', 'grep', 'glob', 'list_dir'], b: [], c: [1, 'two', true], d: ['read_file', 'grep'] });
  });

  it('reads block lists, indented or at the key indentation, with comments between items', () => {
    expect(
      valuesOf(
        ['tools:', '  - read_file', '  # grep later', '  - "glob"', '', 'other:', '- a', '- b  # note', 'last: 1'].join('\n'),
      ),
    ).toEqual({ tools: ['read_file', 'glob'], other: ['a', 'b'], last: 1 });
  });

  it('reads block scalars and folds multi-line plain scalars', () => {
    expect(
      valuesOf(
        [
          'literal: |',
          '  line one',
          '    indented',
          '',
          '  line three',
          'folded: >-',
          '  one',
          '  two',
          '',
          '  para',
          'kept: |+',
          '  last',
          '',
          'plain: starts here',
          '  and continues',
          'nextline:',
          '  only text',
          'colons: |',
          '  Use this agent when: the user asks.',
        ].join('\n'),
      ),
    ).toEqual({
      literal: 'line one\n  indented\n\nline three\n',
      folded: 'one two\npara',
      kept: 'last\n\n',
      plain: 'starts here and continues',
      nextline: 'only text',
      colons: 'Use this agent when: the user asks.\n',
    });
  });

  it('reads nested maps and lists under keys (Claude Code hooks), and an indented block', () => {
    expect(valuesOf('hooks:\n  PreToolUse:\n    - matcher: Bash\n      command: "./check.sh"\nmap: {a: 1, b: [2]}')).toEqual({
      hooks: { PreToolUse: [{ matcher: 'Bash', command: './check.sh' }] },
      map: { a: 1, b: [2] },
    });
    expect(valuesOf('  name: x\n  description: y')).toEqual({ name: 'x', description: 'y' });
  });

  it('keeps Claude Code comma lists as one string', () => {
    expect(valuesOf('tools: Read, Grep, Glob')).toEqual({ tools: 'Read, Grep, Glob' });
  });

  it('reads a one-line plain value holding ": " as text, as Claude Code files are written', () => {
    expect(valuesOf('colon: Use this agent when: the user asks\nname: x')).toEqual({
      colon: 'Use this agent when: the user asks',
      name: 'x',
    });
    expect(valuesOf('d: Examples:\\n<example>user: "hi" \\ there</example>')).toEqual({
      d: 'Examples:\\n<example>user: "hi" \\ there</example>',
    });
  });
});

describe('parseFrontMatter: descriptions that are not YAML but Claude Code loads', () => {
  it('keeps example lines at the margin in the description, quoted or not', () => {
    expect(
      valuesOf(
        'name: r\ndescription: Use it to review. Examples:\n<example>\nuser: "Review this"\nassistant: "I will"\n</example>\ntools: Read',
      ),
    ).toEqual({
      name: 'r',
      description: 'Use it to review. Examples:\n<example>\nuser: "Review this"\nassistant: "I will"\n</example>',
      tools: 'Read',
    });
    expect(valuesOf('description: "Use it.\n\nuser: \\"Hi\\" \\\\ok\nassistant: \\"Hello\\""\nmodel: sonnet')).toEqual({
      description: 'Use it.\n\nuser: "Hi" \\ok\nassistant: "Hello"',
      model: 'sonnet',
    });
    expect(valuesOf('description: Use this agent when: x\n  continued here')).toEqual({
      description: 'Use this agent when: x\n  continued here',
    });
  });

  it('reads a quoted description with quotes inside it as the text between the outer ones', () => {
    expect(valuesOf(`description: "Ask "why": it explains"\nname: q`)).toEqual({
      description: 'Ask "why": it explains',
      name: 'q',
    });
    expect(valuesOf(`description: 'It''s "here": now'\nname: q`)).toEqual({ description: `It's "here": now`, name: 'q' });
  });

  it('rescues prose only: a name, a list, a map, an open quote or a stray first line stay errors', () => {
    expect(errorOf('name: x\nthis is not yaml')).toMatch(/^line 3: invalid YAML/);
    expect(errorOf('description: "never closed\nuser: x')).toMatch(/^line \d: invalid YAML: Missing closing/);
    expect(errorOf('description: [a, b\nuser: "x"')).toMatch(/^line \d: invalid YAML: Flow sequence/);
    expect(errorOf('just words: "x" y\ndescription: d')).toMatch(/^line 2: invalid YAML/);
    expect(errorOf('description: a: b\nuser: "x"\ndescription: c')).toMatch(/^line \d: invalid YAML/);
  });
});

describe('parseFrontMatter: errors', () => {
  it('names the file line of a YAML syntax error in one line', () => {
    const cases: Array<[string, string]> = [
      [
        'name: x\nthis is not yaml',
        'line 3: invalid YAML: Implicit map keys need to be followed by map values (each field is a line "key: value")',
      ],
      [
        'name: x\ncolor: "unterminated',
        'line 3: invalid YAML: Missing closing "quote (close the string with the quote it opens with)',
      ],
      ['name: x\nafter: "x" junk', 'line 3: invalid YAML: Unexpected scalar at node end'],
      ['escape: "\\q"', 'line 2: invalid YAML: Invalid escape sequence \\q'],
      ['tools:\n\t- read_file', 'line 3: invalid YAML: Tabs are not allowed as indentation (indent with spaces, not tabs)'],
      ['name: x\ndescription: y\nname: z', 'line 4: "name" is given twice; keep one'],
    ];
    for (const [frontMatter, error] of cases) {
      expect(errorOf(frontMatter)).toBe(error);
    }
  });

  it('reports the original error when quoting the values does not help', () => {
    expect(errorOf('name: a: b\nlist: [a, b')).toBe(
      'line 2: invalid YAML: Nested mappings are not allowed in compact mappings (put a value that holds ": " in quotes)',
    );
  });

  it('refuses aliases that expand without end', () => {
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...['b', 'c', 'd'].map((key, i) => {
        const previous = ['a', 'b', 'c'][i];
        return `${key}: &${key} [${Array(10).fill(`*${previous}`).join(', ')}]`;
      }),
    ].join('\n');
    expect(errorOf(bomb)).toBe('invalid YAML: Excessive alias count indicates a resource exhaustion attack');
  });
});
