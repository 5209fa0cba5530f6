import hljs from 'highlight.js/lib/core';
import { describe, expect, it } from 'vitest';
import { highlightCode, knownLanguage } from '../../../src/ui/markdown/highlight.js';

describe('code highlighting', () => {
  it('registers its languages when code is first coloured, not when the module loads', () => {
    expect(hljs.listLanguages()).toEqual([]);
    expect(knownLanguage('ts')).toBe(true);
    expect(hljs.listLanguages()).toContain('typescript');
    expect(knownLanguage('brainfuck')).toBe(false);
    expect(highlightCode('const a = 1;', 'ts')[0]).toContainEqual({ text: 'const', color: 'magenta' });
  });
});
