import { describe, expect, it } from 'vitest';
import { imageFromBytes } from '../../../src/core/providers/image-block.js';
import type { Message } from '../../../src/core/providers/types.js';
import { historyEntries } from '../../../src/ui/state/history-entries.js';
import { describeMessage } from '../../../src/ui/state/message-lines.js';
import { conversationMarkdown } from '../../../src/ui/state/session-report.js';
import { applyTranscriptEvent, initialTranscript } from '../../../src/ui/state/transcript.js';
import { pngImage } from '../../support/images.js';

/** A 34 KB PNG: what the transcript calls `[image: 34.0 KB png]`. */
const image = imageFromBytes(Buffer.concat([pngImage(), Buffer.alloc(34 * 1024 - pngImage().length)]), 'shot');
const prompt: Message = { role: 'user', content: [image, { type: 'text', text: 'what is this?' }] };

describe('images in the transcript', () => {
  it('a prompt shows a line per image, from the submit event (no data in it)', () => {
    const state = applyTranscriptEvent(initialTranscript, {
      type: 'submit',
      prompt: 'what is this?',
      images: [{ mediaType: 'image/png', bytes: 34 * 1024 }],
    });
    expect(state.entries.map(({ id: _id, ...entry }) => entry)).toEqual([
      { kind: 'user', text: 'what is this?\n[image: 34.0 KB png]' },
    ]);
    const alone = applyTranscriptEvent(initialTranscript, {
      type: 'submit',
      prompt: '',
      images: [{ mediaType: 'image/webp', bytes: 500 }],
    });
    expect(alone.entries.map(({ id: _id, ...entry }) => entry)).toEqual([{ kind: 'user', text: '[image: 500 B webp]' }]);
  });

  it('a resumed prompt, /export and a job’s tail name the image too', () => {
    expect(historyEntries([prompt])).toEqual([{ kind: 'user', text: 'what is this?\n[image: 34.0 KB png]' }]);
    expect(conversationMarkdown([prompt], { sessionId: 's' })).toContain('## You\n\nwhat is this?\n[image: 34.0 KB png]\n');
    expect(describeMessage(prompt)).toBe('user: [image: 34.0 KB png] · what is this?');
  });
});
