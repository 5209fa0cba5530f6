import { describe, expect, it } from 'vitest';
import type { LoopResult } from '../../../src/core/loop/agent-loop.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import type { EntryBody } from '../../../src/ui/state/transcript.js';
import { TurnRunner } from '../../../src/ui/state/turn-runner.js';
import type { UiSession } from '../../../src/ui/ui-session.js';
import { settle, until } from '../harness.js';

const result = (kind: 'completed' | 'aborted'): LoopResult => ({
  newMessages: [],
  cause: { kind },
  usage: emptyUsage(),
  turns: 1,
});

/** A session whose turns each wait for the test to release them (or for their signal); it records how each ended. */
function heldSession() {
  const started: (string | undefined)[] = [];
  const ended: string[] = [];
  const releases: (() => void)[] = [];
  const session: Pick<UiSession, 'submit' | 'compact'> = {
    async submit(prompt, signal) {
      started.push(prompt);
      const released = await new Promise<boolean>((resolve) => {
        releases.push(() => resolve(true));
        if (signal.aborted) resolve(false);
        signal.addEventListener('abort', () => resolve(false), { once: true });
      });
      const kind = released ? 'completed' : 'aborted';
      ended.push(kind);
      return result(kind);
    },
    async compact() {
      return { type: 'compact', removedMessages: 3, summaryChars: 10 };
    },
  };
  return { session, started, ended, releases };
}

/** The runner's own lines (a turn's events reach the screen through the session's stream, not the runner). */
function recorder() {
  const entries: EntryBody[] = [];
  return { say: (entry: EntryBody) => entries.push(entry), entries };
}

describe('TurnRunner', () => {
  it('runs one turn at a time and sends queued prompts in order when the turn ends', async () => {
    const { session, started, releases } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, say: log.say });
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
    expect(started).toEqual(['one', 'two', 'three']);
    expect(log.entries).toEqual([]);
  });

  it('interrupt aborts the turn and hands back the queued prompts instead of sending them', async () => {
    const { session, started, ended } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, say: log.say });
    runner.submit('one');
    runner.submit('two');
    expect(runner.interrupt()).toEqual(['two']);
    await until(() => runner.snapshot().busy === undefined);
    expect(started).toEqual(['one']);
    expect(ended).toEqual(['aborted']);
    expect(runner.interrupt()).toEqual([]);
  });

  it('reports a turn that throws, and keeps going with the next prompt', async () => {
    let calls = 0;
    const log = recorder();
    const runner = new TurnRunner({
      session: {
        async submit() {
          calls += 1;
          if (calls === 1) throw new Error('the transcript disk is full');
          return result('completed');
        },
        compact: async () => undefined,
      },
      say: log.say,
    });
    runner.submit('one');
    runner.submit('two');
    await until(() => calls === 2 && runner.snapshot().busy === undefined);
    expect(log.entries).toContainEqual({ kind: 'error', text: 'the turn failed: the transcript disk is full' });
  });

  it('compacts when idle and says so when there is nothing to compact', async () => {
    const { session } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, say: log.say });
    expect(runner.compact()).toBe(true);
    await until(() => runner.snapshot().busy === undefined);
    expect(log.entries).toEqual([{ kind: 'info', text: 'compacting the conversation…' }]);

    const quiet = recorder();
    const empty = new TurnRunner({ session: { ...session, compact: async () => undefined }, say: quiet.say });
    empty.compact();
    await until(() => empty.snapshot().busy === undefined);
    expect(quiet.entries).toContainEqual({ kind: 'info', text: 'nothing to compact yet' });
  });

  it('wake starts a turn with no prompt when idle, and nothing while a turn runs', async () => {
    const { session, started, releases } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, say: log.say });
    expect(runner.wake()).toBe(true);
    expect(runner.snapshot()).toEqual({ busy: 'wake', queued: [] });
    expect(runner.wake()).toBe(false);
    runner.submit('typed meanwhile');
    expect(runner.snapshot().queued).toEqual(['typed meanwhile']);

    await until(() => releases.length === 1);
    releases[0]!();
    await until(() => releases.length === 2);
    expect(started).toEqual([undefined, 'typed meanwhile']);
    runner.interrupt();
    await until(() => runner.snapshot().busy === undefined);
    runner.dispose();
    expect(runner.wake()).toBe(false);
  });

  it('interrupt aborts a wake turn like any other', async () => {
    const { session, ended } = heldSession();
    const log = recorder();
    const runner = new TurnRunner({ session, say: log.say });
    runner.wake();
    runner.interrupt();
    await until(() => runner.snapshot().busy === undefined);
    expect(ended).toEqual(['aborted']);
  });

  it('runs nothing after dispose', async () => {
    const { session, started, ended } = heldSession();
    const runner = new TurnRunner({ session, say: () => {} });
    runner.submit('one');
    runner.submit('two');
    runner.dispose();
    runner.submit('three');
    // The aborted turn ends and the runner settles; had it gone on, 'two' would have started by now.
    await until(() => ended.length === 1);
    await settle();
    expect(started).toEqual(['one']);
  });
});
