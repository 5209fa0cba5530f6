import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { entriesToBlank, environmentBlock, hideProviderKeys, keyHidingLine } from '../../src/start/hide-keys.js';

// The real environment block is written over in the built binary (test/e2e/key-exposure.test.ts);
// here, the parts that decide what is written, and what happens where it cannot be.
describe('entriesToBlank', () => {
  const block = Buffer.from('PATH=/bin\0ANTHROPIC_API_KEY=sk-1\0X=ANTHROPIC_API_KEY=no\0ANTHROPIC_API_KEY=again\0TAIL=1');

  it('finds each entry with a named variable, whole, by name only (not a value that looks like one)', () => {
    const ranges = entriesToBlank(block, new Set(['ANTHROPIC_API_KEY']));
    expect(ranges.map(([from, to]) => block.toString('utf8', from, to))).toEqual([
      'ANTHROPIC_API_KEY=sk-1',
      'ANTHROPIC_API_KEY=again',
    ]);
  });

  it('handles a last entry without its NUL, and entries without "="', () => {
    const ranges = entriesToBlank(Buffer.from('JUNK\0TAIL=1'), new Set(['TAIL', 'JUNK']));
    expect(ranges).toEqual([[5, 11]]);
  });
});

describe('environmentBlock', () => {
  it("reads this process's block from /proc/self/stat", () => {
    const { start, end } = environmentBlock(readFileSync('/proc/self/stat', 'utf8'));
    expect(end - start).toBeGreaterThan(0);
  });

  it('is not fooled by a command name with spaces and parentheses', () => {
    const fields = Array.from({ length: 52 }, (_, i) => String(i + 1));
    fields[49] = '1000';
    fields[50] = '2000';
    const stat = `${fields[0]} (a) (b c) ${fields.slice(2).join(' ')}`;
    expect(environmentBlock(stat)).toEqual({ start: 1000, end: 2000 });
  });

  it('throws on a stat without the fields (an old kernel)', () => {
    expect(() => environmentBlock('1 (x) S 1 2 3')).toThrow(/no environment block/);
  });
});

describe('hideProviderKeys', () => {
  it('takes the key variables, and any variable holding a key, out of the environment it is given', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin', OPENAI_API_KEY: 'sk-openai-0123456789', AUTH: 'Bearer sk-openai-0123456789' };
    const hidden = hideProviderKeys(env, '/nonexistent-proc');
    expect(env).toEqual({ PATH: '/bin' });
    expect(hidden.env).toEqual({ PATH: '/bin', OPENAI_API_KEY: 'sk-openai-0123456789', AUTH: 'Bearer sk-openai-0123456789' });
    // Where /proc/self/mem cannot be written, it says so rather than claim the key is hidden.
    expect(hidden.hiding).toMatchObject({ state: 'readable', variables: ['OPENAI_API_KEY', 'AUTH'] });
    expect(keyHidingLine(hidden.hiding)).toMatch(/^provider key: OPENAI_API_KEY, AUTH could not be taken out .*ENOENT/);
  });

  it('leaves an environment without keys as it is', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin', OPENAI_API_KEY: '' };
    expect(hideProviderKeys(env, '/nonexistent-proc')).toEqual({ env, hiding: { state: 'none' } });
  });
});
