import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest, Reply } from '../support/mock-provider.js';
import { until } from '../support/until.js';
import { lastUserText, useTui } from '../support/tmux.js';

/** /rewind in the real terminal, against the built binary and the mock provider. */
const tui = useTui();

/** Each prompt makes the agent write one file (and change notes.txt); a tool result gets a line of text. */
function writer(request: RecordedRequest): Reply {
  const last = lastUserText(request);
  if (last.includes('tool_result'))
    return { text: last.includes('alpha.txt') ? 'Wrote the alpha file.' : 'Wrote the beta file.' };
  if (last.includes('write the alpha file'))
    return {
      toolCalls: [
        { name: 'write_file', args: { path: 'alpha.txt', content: 'alpha\n' } },
        { name: 'edit_file', args: { path: 'notes.txt', old_string: 'original', new_string: 'after alpha' } },
      ],
    };
  if (last.includes('write the beta file'))
    return {
      toolCalls: [
        { name: 'write_file', args: { path: 'beta.txt', content: 'beta\n' } },
        { name: 'edit_file', args: { path: 'notes.txt', old_string: 'after alpha', new_string: 'after beta' } },
      ],
    };
  return { text: 'ok' };
}

describe('/rewind', () => {
  it('goes back to the first prompt, restoring code and conversation: files as before, transcript cut, prompt in the input', async () => {
    const pane = await tui.start({ args: ['--yolo'], files: { 'notes.txt': 'original\n' } });
    const file = (name: string) => path.join(pane.project, name);
    tui.mock.respond(writer);
    pane.type('write the alpha file');
    await pane.screen(/Wrote the alpha file\./);
    pane.type('write the beta file');
    await pane.screen(/Wrote the beta file\./);
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('after beta\n');
    expect(existsSync(file('alpha.txt')) && existsSync(file('beta.txt'))).toBe(true);

    pane.type('/rewind');
    const list = await pane.screen(/Rewind: go back to before which prompt\?/);
    expect(list).toMatch(
      / {2}write the alpha file · 3 files changed since[^\n]*\n[^\n]*› write the beta file · 2 files changed since/,
    );
    pane.key('Up');
    pane.key('Enter');
    const choices = await pane.screen(/Rewind to before "write the alpha file"/);
    expect(choices).toContain('3 files the agent changed since then: alpha.txt, notes.txt, beta.txt');
    expect(choices).toMatch(/› Restore code and conversation/);
    expect(choices).toContain('Edits made by bash commands');
    pane.key('Enter');

    const after = await pane.screen(/The conversation is back to before "write the alpha file"/);
    await until(() => !existsSync(file('alpha.txt')) && !existsSync(file('beta.txt')), {
      what: 'the files the agent wrote to be removed',
    });
    expect(readFileSync(file('notes.txt'), 'utf8')).toBe('original\n');
    expect(after).toContain('Put back as they were: notes.txt');
    expect(after).toContain('Removed (the agent created them): alpha.txt, beta.txt');
    // The screen was cleared and printed again: nothing of the rewound turns is left, in view or above it.
    const all = pane.capture({ history: true });
    expect(all).not.toContain('Wrote the alpha file.');
    expect(all).not.toContain('Wrote the beta file.');
    expect(all).not.toContain('› write the beta file');
    expect(all.match(/outrider · /g)).toHaveLength(1);
    // The prompt is back in the input (the last bordered line above the footer).
    expect(after).toMatch(/│ › write the alpha file\s+│/);

    // Sent again as it is, the model sees only that prompt.
    const before = tui.mock.requests.length;
    pane.key('Enter');
    await until(() => tui.mock.requests.length > before, { what: 'the prompt sent again' });
    const messages = tui.mock.requests[before]!.body.messages as { role: string }[];
    expect(messages).toHaveLength(1);
    expect(JSON.stringify(messages)).toContain('write the alpha file');
    await pane.screen(/Wrote the alpha file\./);
  });
});
