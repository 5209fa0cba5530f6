import { describe, expect, it } from 'vitest';
import { MAX_HOOK_TEXT, combineVerdicts, interpretRun, outcomeOf } from '../../../src/core/hooks/decision.js';
import type { HookRun } from '../../../src/core/hooks/decision.js';

const run = (over: Partial<HookRun>): HookRun => ({ command: './hook.sh', exitCode: 0, stdout: '', stderr: '', ...over });

describe('interpretRun: exit codes', () => {
  it('exit 2 blocks with stderr on the events that can block', () => {
    for (const event of ['PreToolUse', 'PostToolUse', 'UserPromptSubmit', 'Stop', 'SubagentStop'] as const) {
      expect(interpretRun(event, run({ exitCode: 2, stderr: 'no rm\n' })).block).toBe('no rm');
    }
  });

  it('exit 2 without stderr still blocks, saying so', () => {
    expect(interpretRun('PreToolUse', run({ exitCode: 2 })).block).toMatch(/without saying why/);
  });

  it('exit 2 is only a warning where nothing can be blocked', () => {
    for (const event of ['SessionStart', 'Notification', 'SubagentStart'] as const) {
      const verdict = interpretRun(event, run({ exitCode: 2, stderr: 'nope' }));
      expect(verdict.block).toBeUndefined();
      expect(verdict.warning).toBe('exit code 2: nope');
    }
  });

  it('any other non-zero exit is a warning, never a block, and its JSON is not read', () => {
    const verdict = interpretRun(
      'PreToolUse',
      run({ exitCode: 1, stderr: 'crashed', stdout: '{"hookSpecificOutput":{"permissionDecision":"deny"}}' }),
    );
    expect(verdict).toEqual({ command: './hook.sh', warning: 'exit code 1: crashed' });
  });

  it('a timeout, a kill and a failed start are warnings; an abort is nothing', () => {
    expect(interpretRun('PreToolUse', run({ exitCode: null, timedOut: { afterMs: 1500 } })).warning).toBe(
      'timed out after 1.5s and was stopped',
    );
    expect(interpretRun('Stop', run({ exitCode: null })).warning).toBe('was killed');
    expect(interpretRun('Stop', run({ exitCode: null, spawnError: 'ENOENT' })).warning).toBe('could not be started: ENOENT');
    expect(interpretRun('PreToolUse', run({ exitCode: null, aborted: true, stderr: 'x' }))).toEqual({ command: './hook.sh' });
  });
});

describe('interpretRun: JSON on stdout', () => {
  const json = (value: unknown) => run({ stdout: JSON.stringify(value) });

  it('PreToolUse permissionDecision allow, ask and deny, with their reason', () => {
    for (const decision of ['allow', 'ask', 'deny'] as const) {
      const verdict = interpretRun(
        'PreToolUse',
        json({
          hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: 'why' },
        }),
      );
      expect(verdict.permission).toEqual({ decision, reason: 'why' });
    }
  });

  it("PreToolUse's older approve and block", () => {
    expect(interpretRun('PreToolUse', json({ decision: 'approve', reason: 'fine' })).permission).toEqual({
      decision: 'allow',
      reason: 'fine',
    });
    expect(interpretRun('PreToolUse', json({ decision: 'block', reason: 'bad' })).permission).toEqual({
      decision: 'deny',
      reason: 'bad',
    });
  });

  it('an unknown permissionDecision decides nothing', () => {
    expect(interpretRun('PreToolUse', json({ hookSpecificOutput: { permissionDecision: 'maybe' } })).permission).toBeUndefined();
  });

  it('decision block with a reason blocks Stop, PostToolUse and UserPromptSubmit', () => {
    for (const event of ['Stop', 'PostToolUse', 'UserPromptSubmit'] as const) {
      expect(interpretRun(event, json({ decision: 'block', reason: 'tests fail' })).block).toBe('tests fail');
    }
    expect(interpretRun('SessionStart', json({ decision: 'block', reason: 'x' })).block).toBeUndefined();
  });

  it('continue: false stops, with stopReason; systemMessage is for the user', () => {
    const verdict = interpretRun('PostToolUse', json({ continue: false, stopReason: 'build broke', systemMessage: 'see log' }));
    expect(verdict.stop).toBe('build broke');
    expect(verdict.message).toBe('see log');
    expect(interpretRun('Stop', json({ continue: false })).stop).toMatch(/Stop hook stopped the agent/);
  });

  it('additionalContext, and the plain stdout of UserPromptSubmit and SessionStart, are context', () => {
    expect(interpretRun('SessionStart', json({ hookSpecificOutput: { additionalContext: 'branch main' } })).context).toBe(
      'branch main',
    );
    expect(interpretRun('UserPromptSubmit', run({ stdout: 'today is Monday\n' })).context).toBe('today is Monday');
    expect(interpretRun('SessionStart', run({ stdout: 'plain' })).context).toBe('plain');
    // Elsewhere plain stdout is the hook's own business.
    expect(interpretRun('PreToolUse', run({ stdout: 'checked' }))).toEqual({ command: './hook.sh' });
  });

  it('broken JSON is a warning, not a decision', () => {
    expect(interpretRun('PreToolUse', run({ stdout: '{"decision": "block"' })).warning).toMatch(/could not be read/);
    // UserPromptSubmit takes what is not JSON as text.
    expect(interpretRun('UserPromptSubmit', run({ stdout: '{not json' })).context).toBe('{not json');
  });

  it('JSON that is not an object, or fields of the wrong type, decide nothing', () => {
    expect(interpretRun('Stop', run({ stdout: '["block"]' }))).toEqual({ command: './hook.sh' });
    const verdict = interpretRun('Stop', json({ decision: 'block', reason: 42, continue: 'no', hookSpecificOutput: 'x' }));
    expect(verdict.block).toMatch(/without saying why/);
    expect(verdict.stop).toBeUndefined();
  });

  it('a huge reason or context is cut to MAX_HOOK_TEXT characters, saying so', () => {
    const verdict = interpretRun('PreToolUse', run({ exitCode: 2, stderr: 'x'.repeat(MAX_HOOK_TEXT * 3) }));
    expect(verdict.block!.length).toBeLessThan(MAX_HOOK_TEXT + 100);
    expect(verdict.block).toMatch(/cut at 10000 characters/);
  });
});

describe('combineVerdicts', () => {
  it('deny wins over ask, ask over allow; every block and context is kept', () => {
    const decision = combineVerdicts([
      { command: 'a', permission: { decision: 'allow', reason: 'ok' } },
      { command: 'b', permission: { decision: 'ask', reason: 'check' } },
      { command: 'c', permission: { decision: 'deny', reason: 'no' }, context: 'one' },
      { command: 'd', permission: { decision: 'deny', reason: 'never' }, context: 'two', block: 'x' },
    ]);
    expect(decision.permission).toEqual({ decision: 'deny', reason: 'no\nnever' });
    expect(decision.context).toBe('one\ntwo');
    expect(decision.block).toBe('x');
    expect(
      combineVerdicts([
        { command: 'a', permission: { decision: 'allow', reason: 'ok' } },
        { command: 'b', permission: { decision: 'ask', reason: 'hm' } },
      ]).permission,
    ).toEqual({ decision: 'ask', reason: 'hm' });
  });

  it('no hooks decide nothing', () => {
    expect(combineVerdicts([])).toEqual({ verdicts: [] });
  });
});

describe('outcomeOf', () => {
  it('names the most serious thing a run did', () => {
    expect(outcomeOf({ command: 'a', stop: 's', block: 'b' })).toEqual({ outcome: 'stopped', text: 's' });
    expect(outcomeOf({ command: 'a', block: 'b', warning: 'w' })).toEqual({ outcome: 'blocked', text: 'b' });
    expect(outcomeOf({ command: 'a', warning: 'w' })).toEqual({ outcome: 'warning', text: 'w' });
    expect(outcomeOf({ command: 'a' })).toEqual({ outcome: 'ok' });
  });
});
