import { describe, expect, it } from 'vitest';
import type { LoopResult } from '../../../src/core/loop/agent-loop.js';
import type { AgentEvent } from '../../../src/core/loop/events.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import type { TranscriptAction } from '../../../src/ui/state/transcript.js';
import { TurnRunner } from '../../../src/ui/state/turn-runner.js';
import type { UiSession } from '../../../src/ui/ui-session.js';
import { until } from '../harness.js';

const result = (kind: 'completed' | 'aborted'): LoopResult => ({ history: [], newMessages: [], cause: { kind }, usage: emptyUsage(), turns: 1 });

/** A session whose turns each wait for the test to release them (or for their signal). */
function heldSession() {
  const started: (string | undefined)[] = [];
  const releases: (() => void)[] = [];
  const session: Pick<UiSession, 'submit' | 'compact'> = {
    async *submit(prompt, signal): AsyncGenerator<AgentEvent, LoopResult> {
      started.push(prompt);
      yield { type: 'text_delta', text: `answer to ${prompt}` };
      const released = await new Promise<boolean>((resolve) => {
        releases.push(() => resolve(true));
        if (signal.aborted) resolve(false);
        signal.addEventListener('abort', () => resolve(false), { once: true });
      });
      const kind = released ? 'completed' : 'aborted';
      yield { type: 'run_end', cause: { kind } };
      return result(kind);
    },
    async compact() {
      return { type: 'compact', removedMessages: 3, summaryChars: 10 };
    },
  };
  return { session, started, releases };
}

function recorder() {
  const actions: TranscriptAction[] = [];
  const entries = () => actions.flatMap((a) => (a.type === 'append' ? [a.entry] : []));
  const events = () => actions.flatMap((a) => (a.type === 'events' ? a.events : []));
  return { dispatch: (a: TranscriptAction) => actions.push(a), entries, events };
}

describe('TurnRunner', () => {
  it('runs one turn at a time and sends queued prompts in order when the turn ends', async () => {
    const { session, started, releases } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, dispatch: log.dispatch, flushMs: 1 });
    runner.submit('one');
    runner.submit('two');
    runner.submit('three');
    expect(runner.snapshot()).toEqual({ busy: 'prompt', queued: ['two', 'three'] });
    expect(started).toEqual(['one']);
    expect(runner.compact()).toBe(false);

    await until(() => releases.length === 1);
    releases[0]!();
    await until(() => releases.length === 2);
    expect(started).toEqual(['one', 'two']);
    expect(runner.snapshot().queued).toEqual(['three']);
    releases[1]!();
    await until(() => releases.length === 3);
    releases[2]!();
    await until(() => runner.snapshot().busy === undefined);
    expect(log.entries().filter((e) => e.kind === 'user').map((e) => (e as { text: string }).text)).toEqual(['one', 'two', 'three']);
    expect(log.events().filter((e) => e.type === 'text_delta')).toHaveLength(3);
  });

  it('interrupt aborts the turn and hands back the queued prompts instead of sending them', async () => {
    const { session, started } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, dispatch: log.dispatch, flushMs: 1 });
    runner.submit('one');
    runner.submit('two');
    expect(runner.interrupt()).toEqual(['two']);
    await until(() => runner.snapshot().busy === undefined);
    expect(started).toEqual(['one']);
    expect(log.events()).toContainEqual({ type: 'run_end', cause: { kind: 'aborted' } });
    expect(runner.interrupt()).toEqual([]);
  });

  it('reports a turn that throws, and keeps going with the next prompt', async () => {
    let calls = 0;
    const log = recorder();
    const runner = new TurnRunner({
      session: {
        // eslint-disable-next-line require-yield
        async *submit(): AsyncGenerator<AgentEvent, LoopResult> {
          calls += 1;
          if (calls === 1) throw new Error('the transcript disk is full');
          return result('completed');
        },
        compact: async () => undefined,
      },
      dispatch: log.dispatch,
    });
    runner.submit('one');
    runner.submit('two');
    await until(() => calls === 2 && runner.snapshot().busy === undefined);
    expect(log.entries()).toContainEqual({ kind: 'error', text: 'the turn failed: the transcript disk is full' });
  });

  it('compacts when idle and says so when there is nothing to compact', async () => {
    const { session } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, dispatch: log.dispatch, flushMs: 1 });
    expect(runner.compact()).toBe(true);
    await until(() => runner.snapshot().busy === undefined);
    expect(log.events()).toEqual([{ type: 'compact', removedMessages: 3, summaryChars: 10 }]);

    const quiet = recorder();
    const empty = new TurnRunner({ session: { ...session, compact: async () => undefined }, dispatch: quiet.dispatch });
    empty.compact();
    await until(() => empty.snapshot().busy === undefined);
    expect(quiet.entries()).toContainEqual({ kind: 'info', text: 'nothing to compact yet' });
  });

  it('wake starts a turn with no prompt when idle, and nothing while a turn runs', async () => {
    const { session, started, releases } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, dispatch: log.dispatch, flushMs: 1 });
    expect(runner.wake()).toBe(true);
    expect(runner.snapshot()).toEqual({ busy: 'wake', queued: [] });
    expect(runner.wake()).toBe(false);
    runner.submit('typed meanwhile');
    expect(runner.snapshot().queued).toEqual(['typed meanwhile']);

    await until(() => releases.length === 1);
    releases[0]!();
    await until(() => releases.length === 2);
    expect(started).toEqual([undefined, 'typed meanwhile']);
    expect(log.entries()).toEqual([{ kind: 'wake' }, { kind: 'user', text: 'typed meanwhile' }]);
    runner.interrupt();
    await until(() => runner.snapshot().busy === undefined);
    runner.dispose();
    expect(runner.wake()).toBe(false);
  });

  it('interrupt aborts a wake turn like any other', async () => {
    const { session } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, dispatch: log.dispatch, flushMs: 1 });
    runner.wake();
    runner.interrupt();
    await until(() => runner.snapshot().busy === undefined);
    expect(log.events()).toContainEqual({ type: 'run_end', cause: { kind: 'aborted' } });
  });

  it('runs nothing after dispose', async () => {
    const { session, started } = heldSession();
    const runner = new TurnRunner({ session, dispatch: () => {}, flushMs: 1 });
    runner.submit('one');
    runner.submit('two');
    runner.dispose();
    runner.submit('three');
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(['one']);
  });
});
