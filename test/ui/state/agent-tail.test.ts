import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TranscriptWriter } from '../../../src/core/session/transcript.js';
import { readAgentTail } from '../../../src/ui/state/agent-tail.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-tail-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('readAgentTail', () => {
  it('reads the last messages of a transcript the core wrote, one line each', () => {
    const file = path.join(dir, 'sub-1.jsonl');
    const writer = new TranscriptWriter(file, { sessionId: 's/sub-1', cwd: dir, provider: 'anthropic', model: 'm', jobId: 'sub-1' }, { env: {} });
    for (let i = 1; i <= 30; i++) writer.append({ role: 'assistant', content: [{ type: 'text', text: `step ${i}\nmore` }] });
    writer.append({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }, { type: 'tool_use', id: 't', name: 'grep', input: { pattern: 'a' } }] });
    writer.append({ role: 'user', content: [{ type: 'tool_result', toolUseId: 't', content: 'no matches', isError: true }] });
    writer.event('note', { ignored: true });

    const tail = readAgentTail(file);
    expect(tail.lines).toHaveLength(20);
    expect(tail.lines[0]).toBe('assistant: step 13 more');
    expect(tail.lines.slice(-2)).toEqual(['assistant: (thinking) · → grep {"pattern":"a"}', 'result: ✗ no matches']);
  });

  it('skips a line cut short and reports a missing file', () => {
    const file = path.join(dir, 'sub-2.jsonl');
    const message = { role: 'user', content: [{ type: 'text', text: 'Task:\nfind it' }] };
    writeFileSync(file, `${JSON.stringify({ type: 'message', message, at: 'x' })}\n{"type":"message","mess`);
    expect(readAgentTail(file)).toEqual({ lines: ['user: Task: find it'] });
    expect(readAgentTail(path.join(dir, 'sub-9.jsonl'))).toEqual({ lines: [], note: 'no transcript yet' });
  });
});
