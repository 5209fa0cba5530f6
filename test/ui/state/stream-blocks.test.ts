import { describe, expect, it } from 'vitest';
import { splitFinishedBlocks } from '../../../src/ui/state/stream-blocks.js';
import { type UiItem, initialUiState, reduceBatch } from '../../../src/ui/state/ui-store.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';

let seq = 0;
const batch = (...list: SessionEvent[]): UiItem[] => list.map((event) => ({ kind: 'event', item: { seq: ++seq, event } }));

describe('streamed Markdown, block by block', () => {
  it('splits at the last blank line outside a code fence; the growing block stays', () => {
    expect(splitFinishedBlocks('# Title\n\nfirst para')).toEqual({ done: '# Title', rest: 'first para' });
    expect(splitFinishedBlocks('one\n\ntwo\n\nthr')).toEqual({ done: 'one\n\ntwo', rest: 'thr' });
    expect(splitFinishedBlocks('no break yet')).toEqual({ done: '', rest: 'no break yet' });
    // A blank line inside a fence is part of the code.
    expect(splitFinishedBlocks('```ts\na\n\nb\n')).toEqual({ done: '', rest: '```ts\na\n\nb\n' });
    expect(splitFinishedBlocks('```ts\na\n\nb\n```\n\nafter')).toEqual({ done: '```ts\na\n\nb\n```', rest: 'after' });
  });

  it('prints finished blocks while the message streams, and the rest once at its end: nothing twice', () => {
    let state = initialUiState({ intro: [], storedJobs: [], wakeOnComplete: true });
    const text = '# Plan\n\nFirst, read the code.\n\n- one\n- two';
    for (const piece of text.match(/.{1,5}/gs)!) {
      state = reduceBatch(state, batch({ type: 'text_delta', text: piece }));
    }
    const live = state.transcript;
    expect(live.entries.map((e) => (e.kind === 'assistant' ? e.text : ''))).toEqual(['# Plan', 'First, read the code.']);
    expect(live.liveText).toBe('- one\n- two');
    state = reduceBatch(
      state,
      batch({ type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text }] }, stopReason: 'end_turn' }),
    );
    const entries = state.transcript.entries.filter((e) => e.kind === 'assistant');
    expect(entries.map((e) => e.text).join('\n\n')).toBe(text);
    expect(entries.map((e) => e.continued ?? false)).toEqual([false, true, true]);
    expect(state.transcript.liveText).toBe('');
  });
});
