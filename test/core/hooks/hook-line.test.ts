import { describe, expect, it } from 'vitest';
import { hookLine } from '../../../src/core/hooks/hook-line.js';
import { applyTranscriptEvent, initialTranscript } from '../../../src/ui/state/transcript.js';

type HookEvent = Parameters<typeof hookLine>[0];
const event = (over: Partial<HookEvent>): HookEvent => ({
  type: 'hook',
  event: 'PreToolUse',
  command: './guard.sh',
  outcome: 'ok',
  ...over,
});

describe('hookLine', () => {
  it('names the event, what the hook did, the tool and the reason', () => {
    expect(hookLine(event({ outcome: 'blocked', text: 'no rm', tool: { id: 'c1', name: 'bash' } }))).toEqual({
      level: 'warn',
      text: 'PreToolUse hook blocked bash: no rm',
    });
    expect(hookLine(event({ event: 'Stop', outcome: 'blocked', text: 'tests fail' }))).toEqual({
      level: 'info',
      text: 'Stop hook sent the agent back to work: tests fail',
    });
    expect(hookLine(event({ outcome: 'warning', text: 'exit code 1: boom' }))!.text).toBe(
      'PreToolUse hook "./guard.sh" exit code 1: boom',
    );
  });

  it('says nothing for a silent success, or where the run end already says it', () => {
    expect(hookLine(event({}))).toBeUndefined();
    expect(hookLine(event({ outcome: 'stopped', text: 'x' }))).toBeUndefined();
    expect(hookLine(event({ event: 'UserPromptSubmit', outcome: 'blocked', text: 'x' }))).toBeUndefined();
    expect(hookLine(event({ message: 'formatted 3 files' }))).toEqual({
      level: 'info',
      text: 'PreToolUse hook: formatted 3 files',
    });
  });

  it("escapes control characters a hook's output may carry (an echoed command cannot redraw the screen)", () => {
    const line = hookLine(
      event({ outcome: 'denied', text: 'bad \u001b[2J\u001b[H cleared \u202e', tool: { id: 'c', name: 'bash' } }),
    )!;
    expect(line.text).not.toContain('\u001b');
    expect(line.text).not.toContain('\u202e');
    expect(line.text).toContain('\\u{1b}[2J');
  });

  it('reaches the TUI transcript as a notice', () => {
    const state = applyTranscriptEvent(
      initialTranscript,
      event({ outcome: 'denied', text: 'read-only', tool: { id: 'c', name: 'write_file' } }),
    );
    expect(state.entries.at(-1)).toMatchObject({
      kind: 'notice',
      level: 'warn',
      text: 'PreToolUse hook denied write_file: read-only',
    });
  });
});
