/**
 * The two flows of docs/architecture.md never pass back through the composition root: a typed
 * prompt reaches the model, and agent_start's job runs, publishes its events and is delivered as
 * a notice, without a frame of open-session.ts on the way (it assembles; it takes no part).
 * Checked on the stacks, async frames included, at each step a flow reaches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isChildRequest, useTestSessions } from '../../support/test-session.js';

const open = useTestSessions();
const ROOT = /[\\/]src[\\/]core[\\/]session[\\/]open-session\.ts/;

let limit: number;
beforeAll(() => {
  limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
});
afterAll(() => {
  Error.stackTraceLimit = limit;
});

const stack = (): string => new Error('where').stack ?? '';

describe('the two flows', () => {
  it('a prompt, agent_start, its events and its notice never run through open-session.ts', async () => {
    const stacks: Record<string, string[]> = { prompt: [], child: [], jobEvents: [], notice: [] };
    let childDone!: () => void;
    const childAnswered = new Promise<void>((resolve) => (childDone = resolve));
    const { session } = await open((request) => {
      if (isChildRequest(request)) {
        stacks.child!.push(stack());
        childDone();
        return { text: 'child report' };
      }
      const carriesNotice = request.messages.some((message) => message.noticeFor?.length);
      if (carriesNotice) {
        stacks.notice!.push(stack());
        return { text: 'read the report' };
      }
      if (request.messages.length === 1) {
        stacks.prompt!.push(stack());
        return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }] };
      }
      return { text: 'started it' };
    });
    session.events.subscribe(({ event }) => {
      if (event.type === 'job_state' || event.type === 'job_event') stacks.jobEvents!.push(stack());
    });

    await session.submitPrompt('go', new AbortController().signal);
    await childAnswered;
    expect(await session.waitForAgents(new AbortController().signal)).toBe(true);
    await session.session.submit(undefined, new AbortController().signal);

    for (const [step, seen] of Object.entries(stacks)) {
      expect(seen.length, step).toBeGreaterThan(0);
      for (const trace of seen) expect(trace, step).not.toMatch(ROOT);
    }
    // The stacks are deep enough to see the way in: the prompt's reaches the session's submit.
    expect(stacks.prompt![0]).toMatch(/prompt-submission\.ts/);
    expect(stacks.jobEvents![0]).toMatch(/job-records\.ts/);
  });
});
