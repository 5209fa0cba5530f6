import { describe, expect, it } from 'vitest';
import { type FrontMatterField, parseFrontMatter } from '../../../src/core/agents/front-matter.js';

function fieldsOf(frontMatter: string, body = 'Prompt.'): Map<string, FrontMatterField> {
  const result = parseFrontMatter(`---\n${frontMatter}\n---\n${body}\n`);
  if (!result.ok) throw new Error(`expected to parse, got: ${result.error}`);
  return result.fields;
}

function valuesOf(frontMatter: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of fieldsOf(frontMatter)) out[key] = field.ok ? field.value : { error: field.error };
  return out;
}

describe('parseFrontMatter', () => {
  it('splits the front matter from the trimmed body', () => {
    const result = parseFrontMatter('\uFEFF---\r\nname: x\r\n---\r\n\r\n  You are x.\r\nLine two.\r\n\r\n');
    expect(result).toMatchObject({ ok: true, body: 'You are x.\nLine two.' });
    if (result.ok) expect(result.fields.get('name')).toEqual({ ok: true, value: 'x', line: 2 });
  });

  it('keeps "---" inside the body', () => {
    const result = parseFrontMatter('---\nname: x\n---\nabove\n---\nbelow');
    expect(result).toMatchObject({ ok: true, body: 'above\n---\nbelow' });
  });

  it('refuses a file without front matter or with an unclosed one', () => {
    const none = parseFrontMatter('# Just markdown\n\nname: x');
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.error).toMatch(/^no front matter: the file must start with a line "---"/);
    const unclosed = parseFrontMatter('---\nname: x\ndescription: y\nbody');
    expect(unclosed.ok).toBe(false);
    if (!unclosed.ok) expect(unclosed.error).toBe('front matter opened on line 1 is never closed: add a line "---" after the fields');
  });

  it('reads plain, quoted, numeric, boolean and null scalars', () => {
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
          'nothing: ~',
          'empty:',
          'version: 1.2.3',
          'colon: Use this agent when: the user asks',
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
      nothing: null,
      empty: null,
      version: '1.2.3',
      colon: 'Use this agent when: the user asks',
    });
  });

  it('drops comments: whole lines and after whitespace in plain scalars, not inside words or quotes', () => {
    expect(
      valuesOf(['# a comment', 'a: value # trailing', '  # indented comment', 'b: issue#3', 'c: "x # y"  # after', 'd: [a, b] # list'].join('\n')),
    ).toEqual({ a: 'value', b: 'issue#3', c: 'x # y', d: ['a', 'b'] });
  });

  it('reads flow lists, with quotes, numbers, a trailing comma and spread over lines', () => {
    expect(
      valuesOf(['a: [read_file, grep, "glob", \'list_dir\']', 'b: []', 'c: [1, two, true,]', 'd: [read_file,', '    grep]'].join('\n')),
    ).toEqual({ a: ['read_file', 'grep', 'glob', 'list_dir'], b: [], c: [1, 'two', true], d: ['read_file', 'grep'] });
  });

  it('reads block lists, indented or at the key indentation, with comments between items', () => {
    expect(
      valuesOf(['tools:', '  - read_file', '  # grep later', '  - "glob"', '', 'other:', '- a', '- b  # note', 'last: 1'].join('\n')),
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
          'plain: starts here',
          '  and continues',
          'nextline:',
          '  only text',
        ].join('\n'),
      ),
    ).toEqual({
      literal: 'line one\n  indented\n\nline three\n',
      folded: 'one two\npara',
      plain: 'starts here and continues',
      nextline: 'only text',
    });
  });

  it('keeps Claude Code comma lists as one string', () => {
    expect(valuesOf('tools: Read, Grep, Glob')).toEqual({ tools: 'Read, Grep, Glob' });
  });

  it('fails the whole front matter on a line that is not "key: value", naming the file line', () => {
    const result = parseFrontMatter('---\nname: x\nthis is not yaml\n---\nbody');
    expect(result).toEqual({ ok: false, error: 'line 3: expected "key: value", got "this is not yaml"' });
    const indented = parseFrontMatter('---\n  name: x\n---\nbody');
    expect(indented.ok).toBe(false);
    if (!indented.ok) expect(indented.error).toMatch(/^line 2: unexpected indentation/);
  });

  it('attaches value errors to their key so other keys still parse', () => {
    const fields = fieldsOf(
      [
        'name: x',
        'quote: "never closed',
        'list: [a, b',
        'after: "x" junk',
        'escape: "\\q"',
        'hooks:',
        '  PreToolUse:',
        '    - matcher: Bash',
        'map: {a: 1}',
        'dup: 1',
        'dup: 2',
        'description: still read',
      ].join('\n'),
    );
    const errors = Object.fromEntries([...fields].map(([key, field]) => [key, field.ok ? field.value : field.error]));
    expect(errors).toEqual({
      name: 'x',
      quote: 'string opened with " is never closed on line 3',
      list: 'list opened with "[" is never closed on line 4; add "]"',
      after: 'unexpected text "junk" after the value on line 5',
      escape: 'unknown escape "\\q" in a double-quoted string on line 6; write "\\\\" for a backslash',
      hooks: 'nested fields are not supported (line 8); give a single value or a list',
      map: 'maps ({…}) are not supported (line 10); give a single value or a list',
      dup: '"dup" is given twice (lines 11 and 12)',
      description: 'still read',
    });
  });
});
