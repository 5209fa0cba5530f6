import { describe, expect, it } from 'vitest';
import type { JobHistory } from '../../../src/core/session/job-history.js';
import type { Message } from '../../../src/core/providers/types.js';
import type { SessionEvent } from '../../../src/core/session/event-stream.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import { entryLines, liveLines } from '../../../src/ui/components/entry-lines.js';
import { jobTranscript } from '../../../src/ui/state/job-transcript.js';
import { type JobFeedItem, JobViewStore } from '../../../src/ui/state/job-view-store.js';
import { cells } from '../../../src/ui/text-cells.js';
import { counters } from '../harness.js';

const user = (text: string): Message => ({ role: 'user', content: [{ type: 'text', text }] });
const assistant = (text: string): Message => ({ role: 'assistant', content: [{ type: 'text', text }] });
const history = (messages: Message[], pending: JobHistory['pending'] = []): JobHistory => ({ messages, pending });
const of = (event: LoopEvent, jobId = 'sub-1'): JobFeedItem => ({
  kind: 'event',
  event: { type: 'job_event', jobId, event, counters: counters() } as SessionEvent,
});

/** A store over the real drawing (the main chat's components, drawn to text). */
function store(messages: Message[], options: { running?: boolean; height?: number; pending?: JobHistory['pending'] } = {}) {
  const running = options.running ?? false;
  return new JobViewStore(jobTranscript('sub-1', history(messages, options.pending), { running, root: '/w' }), {
    entryLines,
    liveLines,
    width: 60,
    height: options.height ?? 8,
  });
}

/** `line 1` … `line n`, one prompt each: a transcript `n` entries long with one line per entry, a blank before each. */
const numbered = (n: number) => Array.from({ length: n }, (_, i) => user(`line ${i + 1}`));

describe("the job view's transcript and its window", () => {
  it("draws the stored history as the chat draws a resumed one: the user's and the parent's messages as prompts", () => {
    const s = store([
      user('Task:\nfind the loader'),
      assistant('Found it in **src/config.ts**.'),
      user('Message from the user:\nnow the tests'),
      user('Message from the parent agent:\nhurry'),
    ]);
    const text = s.snapshot().lines.join('\n');
    expect(text).toContain('› Task:');
    expect(text).toContain('Found it in src/config.ts.');
    expect(text).not.toContain('**');
    expect(text).toContain('› now the tests');
    expect(text).toContain('› from the parent: hurry');
    expect(text).not.toContain('Message from the');
  });

  it('opens at the live end and scrolls back a page, a line, to the top, and follows again', () => {
    const s = store(numbered(30), { height: 8 });
    // Each prompt is a blank line and its text: the last eight lines are the last four prompts.
    expect(s.snapshot().lines.filter(Boolean)).toEqual(['› line 27', '› line 28', '› line 29', '› line 30']);
    expect(s.snapshot()).toMatchObject({ offset: 0, atTop: false });
    s.page(1);
    expect(s.snapshot().offset).toBe(7);
    expect(s.snapshot().lines.filter(Boolean)[0]).toBe('› line 23');
    s.scroll(-1);
    expect(s.snapshot().offset).toBe(6);
    s.top();
    expect(s.snapshot().atTop).toBe(true);
    expect(s.snapshot().lines.filter(Boolean)[0]).toBe('› line 1');
    expect(s.snapshot().offset).toBe(60 - 8);
    // Past the top it stays at the top.
    s.page(1);
    expect(s.snapshot().offset).toBe(60 - 8);
    s.follow();
    expect(s.snapshot().lines.filter(Boolean).at(-1)).toBe('› line 30');
    // Past the live end nothing moves.
    s.scroll(-5);
    expect(s.snapshot().offset).toBe(0);
  });

  it('scrolled back, keeps its lines in view as new ones arrive below, and counts them', () => {
    const s = store(numbered(30), { height: 8 });
    s.page(1);
    const before = s.snapshot().lines;
    s.apply([of({ type: 'message_end', message: assistant('new answer'), stopReason: 'end_turn' })]);
    expect(s.snapshot().lines).toEqual(before);
    expect(s.snapshot().unseen).toBe(1);
    s.follow();
    expect(s.snapshot().lines.at(-1)).toBe('new answer');
    expect(s.snapshot().unseen).toBe(0);
  });

  it("follows a running job: streamed text, a running tool, then their entries; other jobs' events are not its own", () => {
    const s = store([user('Task:\ncount')], { running: true, height: 20 });
    s.apply([
      of({ type: 'turn_start', turn: 1 }),
      of({ type: 'text_delta', text: 'Counting the ' }),
      of({ type: 'text_delta', text: 'files' }, 'sub-2'),
    ]);
    expect(s.snapshot().lines.at(-1)).toBe('Counting the');
    s.apply([
      of({ type: 'message_end', message: assistant('Counting the files.'), stopReason: 'tool_use' }),
      of({ type: 'tool_start', id: 't1', name: 'read_file', args: { path: '/w/a.ts' }, label: 'a.ts' }),
    ]);
    expect(s.snapshot().lines.slice(-2)).toEqual(['Counting the files.', '● read_file a.ts']);
    s.apply([of({ type: 'tool_end', id: 't1', name: 'read_file', content: 'export const a = 1;', isError: false })]);
    expect(s.snapshot().lines.slice(-2)).toEqual(['● read_file a.ts', '  ⎿ export const a = 1;']);
  });

  it('opened mid-call: the running tools show from the file, and the message shows whole when it ends, not from its middle', () => {
    const s = store(
      [
        user('Task:\nread'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: '/w/b.ts' } }] },
      ],
      { running: true, height: 20, pending: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: '/w/b.ts' } }] },
    );
    expect(s.snapshot().lines.at(-1)).toBe('● read_file b.ts');
    s.apply([of({ type: 'tool_end', id: 't1', name: 'read_file', content: 'const b = 2;', isError: false })]);
    expect(s.snapshot().lines.slice(-2)).toEqual(['● read_file b.ts', '  ⎿ const b = 2;']);

    const streaming = store([user('Task:\nwrite')], { running: true, height: 20 });
    streaming.apply([of({ type: 'text_delta', text: 'rest of a sentence' })]);
    expect(streaming.snapshot().lines.join('\n')).not.toContain('rest of a sentence');
    streaming.apply([
      of({ type: 'message_end', message: assistant('The whole sentence, rest of a sentence.'), stopReason: 'end_turn' }),
    ]);
    expect(streaming.snapshot().lines.at(-1)).toBe('The whole sentence, rest of a sentence.');
    streaming.apply([of({ type: 'turn_start', turn: 2 }), of({ type: 'text_delta', text: 'Next' })]);
    expect(streaming.snapshot().lines.at(-1)).toBe('Next');
  });

  it('a history read again replaces the transcript; drawn entries are not drawn again', () => {
    let drawn = 0;
    const counting = new JobViewStore(jobTranscript('sub-1', history(numbered(5)), { running: true }), {
      entryLines: (entry, width) => {
        drawn += 1;
        return entryLines(entry, width);
      },
      liveLines,
      width: 60,
      height: 40,
    });
    expect(drawn).toBe(5);
    counting.apply([
      { kind: 'reset', transcript: jobTranscript('sub-1', history([...numbered(5), assistant('done')]), { running: false }) },
    ]);
    expect(drawn).toBe(6);
    expect(counting.snapshot().lines.at(-1)).toBe('done');
  });

  it('draws only what the window needs: a long transcript opens without drawing what is above', () => {
    let drawn = 0;
    const long = new JobViewStore(jobTranscript('sub-1', history(numbered(500)), { running: false }), {
      entryLines: (entry, width) => {
        drawn += 1;
        return entryLines(entry, width);
      },
      liveLines,
      width: 60,
      height: 10,
    });
    expect(drawn).toBe(5);
    long.page(1);
    expect(drawn).toBeLessThan(20);
    expect(long.snapshot().lines).toHaveLength(10);
  });

  it('at a new width draws again; hostile sizes are held to one line and one column', () => {
    const s = store([assistant('a '.repeat(40).trim())], { height: 10 });
    expect(s.snapshot().lines.filter(Boolean)).toHaveLength(2);
    s.resize(20, 10);
    expect(s.snapshot().lines.filter(Boolean)).toHaveLength(4);
    s.resize(0, -3);
    expect(s.size()).toEqual({ width: 1, height: 1 });
    expect(s.snapshot().lines).toHaveLength(1);
    s.scroll(Number.NaN || -1);
    expect(s.snapshot().offset).toBe(0);
  });

  it("a fork's view starts at its own task: the parent's conversation before it is counted, not drawn", () => {
    const parent = [user('the parent asks'), assistant('the parent answers')];
    const fork = user('You are now a forked sub-agent of this conversation.\nrules\n\nTask:\nlook');
    const s = new JobViewStore(
      jobTranscript('sub-1', history([...parent, fork, assistant('forked answer')]), { running: false, fork: true }),
      { entryLines, liveLines, width: 60, height: 20 },
    );
    const text = s.snapshot().lines.join('\n');
    expect(text.replace(/\s+/g, ' ')).toContain(
      "· 2 messages of the parent's conversation came before the fork › You are now a forked",
    );
    expect(text).not.toContain('the parent answers');
    expect(text).toContain('forked answer');
  });

  it('a hostile entry (a 3000-line answer, a line wider than the screen, escapes) is drawn at the width and scrolls', () => {
    const huge = Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join('\n\n');
    const s = store([assistant(huge), assistant(`${'w'.repeat(500)} \u001b[2J\u001b]52;c;Zm9v\u0007 end`)], { height: 10 });
    for (const line of s.snapshot().lines) expect(cells(line)).toBeLessThanOrEqual(60);
    expect(s.snapshot().lines.join('\n')).not.toContain('\u001b[2J');
    s.top();
    expect(s.snapshot().lines.filter(Boolean)[0]).toBe('row 1');
    // A screen on keeps its last line in view: nine lines down, a blank one and row 6.
    s.page(-1);
    expect(s.snapshot().lines.filter(Boolean)[0]).toBe('row 6');
  });
});
