import { describe, expect, it } from 'vitest';
import { combinedHooks } from '../../../src/core/hooks/combined-hooks.js';
import type { LoopHooks } from '../../../src/core/loop/loop-hooks.js';

const call = { id: 't1', name: 'bash', args: { command: 'ls' } };
const signal = new AbortController().signal;
const emit = () => {};

/** Hooks that answer as given, and record that they ran. */
function hooks(name: string, ran: string[], answers: { before?: object; after?: object; stop?: object }): LoopHooks {
  return {
    beforeTool: async () => (ran.push(`${name}:before`), answers.before ?? {}),
    afterTool: async () => (ran.push(`${name}:after`), answers.after ?? {}),
    onStop: async () => (ran.push(`${name}:stop`), answers.stop ?? {}),
  };
}

describe('combinedHooks', () => {
  it('is either side alone when the other is absent', () => {
    const one = hooks('a', [], {});
    expect(combinedHooks(one, undefined)).toBe(one);
    expect(combinedHooks(undefined, one)).toBe(one);
    expect(combinedHooks(undefined, undefined)).toBeUndefined();
  });

  it("runs the session's first; a block from either holds, and the job's cannot undo the session's", async () => {
    const ran: string[] = [];
    const blocked = combinedHooks(
      hooks('s', ran, { before: { block: 'session says no' } }),
      hooks('j', ran, { before: { permission: { decision: 'allow', reason: 'ok' } } }),
    );
    expect(await blocked!.beforeTool!(call, signal, emit)).toEqual({ block: 'session says no' });
    expect(ran).toEqual(['s:before']);
    const byJob = combinedHooks(hooks('s', [], {}), hooks('j', [], { before: { block: 'job says no' } }));
    expect(await byJob!.beforeTool!(call, signal, emit)).toEqual({ block: 'job says no' });
  });

  it('an ask from either wins over an allow', async () => {
    const allow = { permission: { decision: 'allow', reason: 'fine' } };
    const ask = { permission: { decision: 'ask', reason: 'check' } };
    expect(
      await combinedHooks(hooks('s', [], { before: allow }), hooks('j', [], { before: ask }))!.beforeTool!(call, signal, emit),
    ).toEqual(ask);
    expect(
      await combinedHooks(hooks('s', [], { before: ask }), hooks('j', [], { before: allow }))!.beforeTool!(call, signal, emit),
    ).toEqual(ask);
    expect(await combinedHooks(hooks('s', [], {}), hooks('j', [], { before: allow }))!.beforeTool!(call, signal, emit)).toEqual(
      allow,
    );
  });

  it("joins both sides' feedback after a call, and their reasons to go on at the end; a stop holds", async () => {
    const ran: string[] = [];
    const both = combinedHooks(
      hooks('s', ran, { after: { feedback: 'one' }, stop: { continueWith: 'more A' } }),
      hooks('j', ran, { after: { feedback: 'two', stop: 'enough' }, stop: { continueWith: 'more B' } }),
    )!;
    expect(await both.afterTool!(call, { content: '', isError: false }, signal, emit)).toEqual({
      feedback: 'one\n\ntwo',
      stop: 'enough',
    });
    expect(await both.onStop!({ stopHookActive: false }, signal, emit)).toEqual({ continueWith: 'more A\n\nmore B' });
    const stopped = combinedHooks(hooks('s', [], { stop: { stop: 'halt' } }), hooks('j', ran, { stop: { continueWith: 'x' } }))!;
    expect(await stopped.onStop!({ stopHookActive: false }, signal, emit)).toEqual({ stop: 'halt' });
  });
});
