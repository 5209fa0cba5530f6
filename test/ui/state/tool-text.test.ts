import { describe, expect, it } from 'vitest';
import { displayPath, toolAction } from '../../../src/ui/state/tool-text.js';

describe('tool calls for people', () => {
  it('names the tool and its target, with paths relative to the workspace', () => {
    const root = '/work/p';
    expect(toolAction('grep', { pattern: 'auth', path: '/work/p/src/' }, '', root)).toBe('grep "auth" src');
    expect(toolAction('grep', { pattern: 'a"b' }, '', root)).toBe('grep "a\\"b"');
    expect(toolAction('glob', { pattern: '**/*.ts', path: 'src' }, '', root)).toBe('glob **/*.ts src');
    expect(toolAction('read_file', { path: '/work/p/src/x.ts' }, '/work/p/src/x.ts', root)).toBe('read_file src/x.ts');
    expect(toolAction('edit_file', { path: './a.ts' }, './a.ts', root)).toBe('edit_file a.ts');
    expect(toolAction('bash', { command: 'npm test\necho done' }, 'npm test', root)).toBe('bash npm test');
    expect(toolAction('list_dir', {}, '.', root)).toBe('list_dir .');
    expect(toolAction('agent_poll', { id: 'sub-2' }, 'sub-2', root)).toBe('agent_poll sub-2');
  });

  it('keeps paths outside the workspace whole', () => {
    expect(displayPath('/etc/hosts', '/work/p')).toBe('/etc/hosts');
    expect(displayPath('/work/p', '/work/p')).toBe('.');
    expect(displayPath('src/a.ts')).toBe('src/a.ts');
  });
});
