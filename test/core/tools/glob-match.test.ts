import { describe, expect, it } from 'vitest';
import { globMatcher, literalDirectory } from '../../../src/core/tools/glob-match.js';

describe('globMatcher', () => {
  const cases: [pattern: string, path: string, expected: boolean][] = [
    ['*.ts', 'a.ts', true],
    ['*.ts', 'src/a.ts', false],
    ['*.ts', 'a.tsx', false],
    ['*.ts', '.hidden.ts', true],
    ['*', '.env', true],
    ['a.ts', 'abts', false],
    ['src/*', 'src/a', true],
    ['src/*', 'src/a/b', false],
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/er/a.ts', true],
    ['**/*.yml', '.github/ci.yml', true],
    ['**', 'any/thing/at/all', true],
    ['src/**', 'src/a', true],
    ['src/**', 'src/a/b/c', true],
    // As with bash's globstar, `src/**` also names `src` itself (the old matcher said no).
    ['src/**', 'src', true],
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
    ['file[!0-9].txt', 'file1.txt', false],
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
    ['x{1..3}.txt', 'x2.txt', true],
    ['x{1..3}.txt', 'x4.txt', false],
    ['@(a|b).ts', 'b.ts', true],
    ['\\*.ts', '*.ts', true],
    ['\\*.ts', 'a.ts', false],
    ['a+b(c).ts', 'a+b(c).ts', true],
    ['file (1).txt', 'file (1).txt', true],
    ['$x^', '$x^', true],
  ];
  it.each(cases)('%s against %s is %s', (pattern, path, expected) => {
    expect(globMatcher(pattern)(path)).toBe(expected);
  });

  it('keeps a long run of alternatives exact', () => {
    const matches = globMatcher('{a,b}'.repeat(12));
    expect(matches('ab'.repeat(6))).toBe(true);
    expect(matches(`${'ab'.repeat(5)}ac`)).toBe(false);
  });
});

describe('literalDirectory', () => {
  it('returns the directories before the first glob syntax', () => {
    expect(literalDirectory('src/core/**/*.ts')).toBe('src/core');
    expect(literalDirectory('src/a.ts')).toBe('src');
    expect(literalDirectory('a.ts')).toBe('');
    expect(literalDirectory('**/*.ts')).toBe('');
    expect(literalDirectory('{src,test}/a.ts')).toBe('');
    expect(literalDirectory('*.ts')).toBe('');
    expect(literalDirectory('src/b[x]/c.ts')).toBe('src');
    expect(literalDirectory('src/we\\*ird/c.ts')).toBe('src');
  });
});
