import { describe, expect, it } from 'vitest';
import { readResultTool } from '../../../src/core/tools/read-result.js';
import { ResultStore } from '../../../src/core/tools/result-store.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { executeTool } from '../../../src/core/tools/registry.js';
import os from 'node:os';

const ctx = { signal: new AbortController().signal, workspace: makeWorkspace(os.tmpdir()) };
const bigText = Array.from({ length: 5000 }, (_, i) => `line ${i + 1}${i % 1000 === 0 ? ' MARK' : ''}`).join('\n');

describe('large-result handoff', () => {
  it('passes small results through and hands large ones off with head, tail, size and an id', () => {
    const store = new ResultStore();
    const limit = store.limiter(1000);
    expect(limit({ content: 'small' }, 'bash')).toEqual({ content: 'small' });
    const out = limit({ content: bigText }, 'bash');
    expect(out.content.startsWith('line 1 MARK\nline 2\n')).toBe(true);
    expect(out.content.endsWith('line 4999\nline 5000')).toBe(true);
    expect(out.content).toContain(`bash output is ${bigText.length} characters, 5000 lines; stored as result_id r1`);
    expect(out.content.length).toBeLessThan(bigText.length);
    expect(store.get('r1')).toBe(bigText);
  });

  it('read_result pages by line, greps, and names the known ids on a miss', async () => {
    const store = new ResultStore();
    store.put(bigText);
    const tool = readResultTool(store);
    const page = await executeTool(tool, { result_id: 'r1', offset: 10, limit: 3 }, ctx);
    expect(page.content).toBe(
      '    10\tline 10\n    11\tline 11\n    12\tline 12\n[lines 10-12 of 5000; continue with offset 13]',
    );
    const grep = await executeTool(tool, { result_id: 'r1', pattern: 'MARK$' }, ctx);
    expect(grep.content).toBe(
      '1:line 1 MARK\n1001:line 1001 MARK\n2001:line 2001 MARK\n3001:line 3001 MARK\n4001:line 4001 MARK',
    );
    const none = await executeTool(tool, { result_id: 'r1', pattern: 'nothing here' }, ctx);
    expect(none.content).toBe('No line of r1 matches "nothing here".');
    const missing = await executeTool(tool, { result_id: 'r9' }, ctx);
    expect(missing).toEqual({ content: 'No stored result "r9". Known result ids: r1.', isError: true });
    const past = await executeTool(tool, { result_id: 'r1', offset: 6000 }, ctx);
    expect(past.isError).toBe(true);
    const bad = await executeTool(tool, { result_id: 'r1', pattern: '(' }, ctx);
    expect(bad.isError).toBe(true);
  });
});
