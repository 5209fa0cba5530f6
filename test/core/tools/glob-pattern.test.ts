import { describe, expect, it } from 'vitest';
import { compileGlob, expandBraces, literalPrefix, matchGlob } from '../../../src/core/tools/glob-pattern.js';

describe('matchGlob', () => {
  const cases: [pattern: string, path: string, expected: boolean][] = [
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['*.ts', 'a.tsx', false],
    ['*.ts', '.hidden.ts', true],
    ['a.ts', 'abts', false],
    ['src/*', 'src/a', true],
    ['src/*', 'src/a/b', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/er/a.ts', true],
    ['**', 'any/thing/at/all', true],
    ['src/**', 'src/a', true],
    ['src/**', 'src/a/b/c', true],
    ['src/**', 'src', false],
    ['src/**', 'srcx/a', false],
    ['src/**/test/*.ts', 'src/test/a.ts', true],
    ['src/**/test/*.ts', 'src/x/y/test/a.ts', true],
    ['src/**/test/*.ts', 'src/x/test/y/a.ts', false],
    ['src/**/**/*.ts', 'src/a.ts', true],
    ['?.md', 'a.md', true],
    ['?.md', 'ab.md', false],
    ['?', '/', false],
    ['file[0-9].txt', 'file7.txt', true],
    ['file[0-9].txt', 'filex.txt', false],
    ['file[!0-9].txt', 'filex.txt', true],
    ['file[^0-9].txt', 'file1.txt', false],
    ['a[!x]b', 'a/b', false],
    ['[]x]', ']', true],
    ['[abc', '[abc', true],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['*.{ts,tsx}', 'a.js', false],
    ['{src,test}/**/*.ts', 'test/x/a.ts', true],
    ['{src,test}/**/*.ts', 'lib/a.ts', false],
    ['a{b,c{d,e}}f', 'acef', true],
    ['a{b,c{d,e}}f', 'acf', false],
    ['{a}', '{a}', true],
    ['{a,b', '{a,b', true],
    ['\\*.ts', '*.ts', true],
    ['\\*.ts', 'a.ts', false],
    ['a+b(c).ts', 'a+b(c).ts', true],
    ['$x^', '$x^', true],
  ];
  it.each(cases)('%s against %s is %s', (pattern, path, expected) => {
    expect(matchGlob(pattern, path)).toBe(expected);
  });

  it('treats braces literally when asked to (as .gitignore does)', () => {
    expect(compileGlob('{a,b}', { braces: false }).test('{a,b}')).toBe(true);
    expect(compileGlob('{a,b}', { braces: false }).test('a')).toBe(false);
  });
});

describe('expandBraces', () => {
  it('expands nested alternatives in order', () => {
    expect(expandBraces('x{a,b{1,2}}y')).toEqual(['xay', 'xb1y', 'xb2y']);
    expect(expandBraces('{a,b}{c,d}')).toEqual(['ac', 'ad', 'bc', 'bd']);
  });

  it('bounds a runaway expansion', () => {
    expect(expandBraces('{a,b}'.repeat(12)).length).toBe(256);
  });
});

describe('literalPrefix', () => {
  it('returns the directories before the first glob syntax', () => {
    expect(literalPrefix('src/core/**/*.ts')).toBe('src/core');
    expect(literalPrefix('src/a.ts')).toBe('src');
    expect(literalPrefix('**/*.ts')).toBe('');
    expect(literalPrefix('{src,test}/a.ts')).toBe('');
    expect(literalPrefix('*.ts')).toBe('');
  });
});
