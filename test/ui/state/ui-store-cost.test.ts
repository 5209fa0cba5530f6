import { describe, expect, it } from 'vitest';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import { type UiItem, UiStore, changesCost, initialUiState } from '../../../src/ui/state/ui-store.js';
import { counters, job } from '../harness.js';

const usage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0 };
const item = (event: SessionEvent): UiItem => ({ kind: 'event', item: { seq: 1, event } });
const childEvent = (event: Extract<SessionEvent, { type: 'job_event' }>['event']) =>
  item({ type: 'job_event', jobId: 'sub-1', event, counters: counters({ usage }) });

/** A store whose pricing answers from `figures` in turn, counting its calls. */
function pricedStore(figures: (number | undefined)[]) {
  const calls = { count: 0 };
  const store = new UiStore(initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false }), {
    cost: () => figures[calls.count++],
  });
  return { store, calls };
}

describe("the store's session cost", () => {
  it('changes with usage (the parent’s, a job’s), a compaction, a job’s state and a model switch', () => {
    const changes = [
      item({ type: 'usage', usage, total: usage }),
      childEvent({ type: 'usage', usage, total: usage }),
      item({ type: 'compact', removedMessages: 4, summaryChars: 100 }),
      item({ type: 'job_state', job: job({ number: 1, state: 'done' }) }),
      item({ type: 'model_changed', model: 'claude-opus-5', contextWindow: 1_000_000 }),
    ];
    const others: UiItem[] = [
      item({ type: 'text_delta', text: 'hi' }),
      childEvent({ type: 'text_delta', text: 'hi' }),
      childEvent({ type: 'compact', removedMessages: 4, summaryChars: 100 }),
      childEvent({ type: 'tool_start', id: 't1', name: 'bash', label: 'ls', args: {} }),
      item({ type: 'submit', prompt: 'go' }),
      { kind: 'line', entry: { kind: 'info', text: 'a line' } },
      { kind: 'redraw', entries: [] },
    ];
    expect(changes.map(changesCost)).toEqual(changes.map(() => true));
    expect(others.map(changesCost)).toEqual(others.map(() => false));
  });

  it('is priced when the store starts and once per batch that can change it, whatever the batch holds', () => {
    const { store, calls } = pricedStore([0, 0.25, undefined]);
    expect(calls.count).toBe(1);
    expect(store.snapshot().cost).toBe(0);

    // Fifty streaming sub-agents' deltas: nothing to price.
    store.apply(Array.from({ length: 50 }, () => childEvent({ type: 'text_delta', text: 'x' })));
    expect(calls.count).toBe(1);

    // A batch with many usage events is priced once, after all of them.
    store.apply([
      ...Array.from({ length: 50 }, () => childEvent({ type: 'usage', usage, total: usage })),
      childEvent({ type: 'text_delta', text: 'x' }),
    ]);
    expect(calls.count).toBe(2);
    expect(store.snapshot().cost).toBe(0.25);

    // A price that became unknown (a job on an unpriced model) is shown as unknown.
    store.apply([item({ type: 'usage', usage, total: usage })]);
    expect(calls.count).toBe(3);
    expect(store.snapshot().cost).toBeUndefined();
  });

  it('without a pricing function leaves the cost unknown and the state as the reducer made it', () => {
    const store = new UiStore(initialUiState({ intro: [], storedJobs: [], wakeOnComplete: false }));
    store.apply([item({ type: 'usage', usage, total: usage })]);
    expect(store.snapshot().cost).toBeUndefined();
    expect(store.snapshot().contextTokens).toBe(15);
  });
});
