import { describe, expect, it } from 'vitest';
import { isIgnored, parseGitignore } from '../../../src/core/tools/gitignore.js';

describe('gitignore rules', () => {
  const rules = parseGitignore(
    [
      '# a comment',
      '',
      '*.log',
      '!keep.log',
      'build/',
      '/top-only.txt',
      'docs/generated',
      '**/tmp',
      'cache/**',
      '\\#literal',
      'trailing   ',
    ].join('\n'),
  );
  const cases: [path: string, isDir: boolean, ignored: boolean][] = [
    ['debug.log', false, true],
    ['deep/in/debug.log', false, true],
    ['keep.log', false, false],
    ['deep/keep.log', false, false],
    ['build', true, true],
    ['src/build', true, true],
    ['build', false, false],
    ['top-only.txt', false, true],
    ['sub/top-only.txt', false, false],
    ['docs/generated', true, true],
    ['x/docs/generated', true, false],
    ['tmp', true, true],
    ['a/b/tmp', true, true],
    ['cache/x', false, true],
    ['cache/x/y', false, true],
    ['#literal', false, true],
    ['trailing', false, true],
    ['# a comment', false, false],
    ['src/index.ts', false, false],
  ];
  it.each(cases)('%s (dir: %s) ignored: %s', (path, isDir, ignored) => {
    expect(isIgnored(rules, path, isDir)).toBe(ignored);
  });

  it('applies a nested file only below its own directory, after the ones above it', () => {
    const all = [...parseGitignore('*.gen.ts\n'), ...parseGitignore('/local.txt\n!keep.gen.ts\n', 'pkg')];
    expect(isIgnored(all, 'pkg/local.txt', false)).toBe(true);
    expect(isIgnored(all, 'local.txt', false)).toBe(false);
    expect(isIgnored(all, 'pkg/sub/local.txt', false)).toBe(false);
    expect(isIgnored(all, 'pkg/a.gen.ts', false)).toBe(true);
    expect(isIgnored(all, 'pkg/keep.gen.ts', false)).toBe(false);
    expect(isIgnored(all, 'keep.gen.ts', false)).toBe(true);
  });

  it('reads CRLF files', () => {
    expect(isIgnored(parseGitignore('a.txt\r\nb.txt\r\n'), 'a.txt', false)).toBe(true);
  });
});
