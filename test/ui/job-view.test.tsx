import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/core/providers/types.js';
import { type FakeReply, fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, fromChild, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const lastText = (request: ModelRequest) => JSON.stringify(request.messages[request.messages.length - 1]);
const childRequests = (requests: ModelRequest[], task: string) =>
  requests.filter((r) => fromChild(r.system) && JSON.stringify(r.messages[0]).includes(task));
/** How many times `text` shows in `screen`. */
const count = (screen: string, text: string) => screen.split(text).length - 1;

/** A promise and its release, to hold a model call until the test lets it go. */
function gate() {
  let open = (): void => {};
  const held = new Promise<void>((resolve) => (open = resolve));
  return { held, open };
}

describe('the job view in the app (a real session, the fake clock)', () => {
  it('opens a job from /agents full screen, follows it live, sends it a message, and goes back to the chat that went on', async () => {
    const first = gate();
    const second = gate();
    const other = gate();
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        const mine = JSON.stringify(request.messages[0]).includes('survey the loader');
        if (!mine) return { wait: other.held, text: 'the other one is done' };
        if (request.messages.length === 1)
          return {
            wait: first.held,
            text: '## Survey\n\nThe loader reads **three** files.',
            toolCalls: [{ name: 'list_dir', args: { path: '.' } }],
          };
        if (request.messages.length === 3) return { wait: second.held, text: 'Listed them.' };
        return { text: 'Read your note too.' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Two are on it.' };
      if (request.messages.length === 1)
        return {
          toolCalls: [
            { name: 'agent_start', args: { task: 'survey the loader' } },
            { name: 'agent_start', args: { task: 'check the tests' } },
          ],
        };
      return { text: 'The parent heard of sub-2.' };
    });
    session = await openTestSession([], { stream });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Two are on it.'));
    await keys(rendered, '/agents', KEY.enter);
    await until(() => frame(rendered).includes('Sub-agents (2)'));
    await keys(rendered, KEY.enter);
    const opened = await until(() => frame(rendered).includes('── transcript') && frame(rendered));
    expect(opened).toContain('sub-1 · explore · running');
    expect(opened).toContain('Used: 1 of 10 turns · 0 tool calls');
    expect(opened).toMatch(/› Task:\nsurvey the loader/);
    // The chat's live area gave way: no input box, no rows, no footer.
    expect(opened).not.toContain('Sub-agents (2)');
    expect(opened).not.toContain('subagents: 2 running');

    // Live: its answer (Markdown as the chat draws it) and its call.
    first.open();
    const live = await until(() => /● list_dir \.\n {2}⎿ /.test(frame(rendered)) && frame(rendered));
    expect(live).toMatch(/Survey\n(\n)?The loader reads three files\.\n● list_dir \.\n/);
    expect(live).not.toContain('## Survey');
    expect(live).not.toContain('**');

    // The chat goes on behind it: sub-2 ends and the parent answers; none of it prints over the view.
    other.open();
    await until(() => s.opened.agents.manager.get('sub-2').state === 'done');
    await until(() => stream.requests.filter((r) => !fromChild(r.system)).length === 3);
    expect(frame(rendered)).not.toContain('◆ sub-2 finished');

    // A message from the view's line: the job reads it at its next step.
    await keys(rendered, KEY.enter, 'also count the tests', KEY.enter);
    await until(() => frame(rendered).includes('sent to sub-1: it reads it at its next step'));
    second.open();
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done');
    const requests = childRequests(stream.requests, 'survey the loader');
    expect(lastText(requests.at(-1)!)).toContain('Message from the user:\\nalso count the tests');
    const ended = await until(() => frame(rendered).includes('Read your note too.') && frame(rendered));
    expect(ended).toMatch(/Listed them\.\n[\s\S]*› also count the tests\n[\s\S]*Read your note too\./);
    expect(count(ended, 'The loader reads three files.')).toBe(1);
    expect(ended).toContain('sub-1 · explore · done');

    // Esc: the chat as it was, then what it printed meanwhile, once each, in order.
    await keys(rendered, KEY.escape);
    const back = await until(() => frame(rendered).includes('Sub-agents (2)') && frame(rendered));
    expect(back).toMatch(/Two are on it\.\n[\s\S]*◆ sub-2 finished: check the tests[\s\S]*The parent heard of sub-2\./);
    expect(count(back, '◆ sub-2 finished')).toBe(1);
    expect(count(back, 'Two are on it.')).toBe(1);
    // The list selects the job the view came back from.
    expect(back).toMatch(/› sub-1 {2}done/);
  });

  it('opened while the job is in a step, the view holds everything before it, and each message once', async () => {
    const held = gate();
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        if (request.messages.length === 1)
          return { text: 'First I look.', toolCalls: [{ name: 'list_dir', args: { path: '.' } }] };
        if (request.messages.length === 3) return { wait: held.held, text: 'Then I answer.' };
        return { text: 'unexpected' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'look around' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => childRequests(stream.requests, 'look around').length === 2 && frame(rendered).includes('Started.'));
    await keys(rendered, '/agents', KEY.enter);
    await until(() => frame(rendered).includes('Sub-agents (1)'));
    await keys(rendered, KEY.enter);
    // From its stored transcript: the task, the first answer and the call with its result.
    const opened = await until(() => frame(rendered).includes('First I look.') && frame(rendered));
    expect(opened).toMatch(/› Task:\nlook around\nFirst I look\.\n● list_dir \.\n {2}⎿ /);
    held.open();
    const done = await until(() => frame(rendered).includes('Then I answer.') && frame(rendered));
    for (const line of ['› Task:\nlook around', 'First I look.', '● list_dir .', 'Then I answer.'])
      expect(count(done, line)).toBe(1);
    expect(done).toContain('Parent: not told yet');
  });

  it("opened while a call runs after another ended, the view reads the file again at the step's end: every result, once", async () => {
    const go = path.join(os.tmpdir(), `outrider-go-${process.pid}-${Date.now()}`);
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        if (request.messages.length === 1)
          return {
            toolCalls: [
              { name: 'list_dir', args: { path: '.' } },
              { name: 'bash', args: { command: `while [ ! -e ${go} ]; do sleep 0.02; done; echo went` } },
            ],
          };
        return { text: 'Both done.' };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'list then wait', agent: 'general' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    s.ui.setPermissionMode('yolo');
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    // list_dir has ended (its result is not in the file until the step ends); bash waits for the file.
    await until(() => s.opened.agents.manager.get('sub-1').toolCalls === 2 && frame(rendered).includes('Started.'));
    await until(() => frame(rendered).includes('bash while'));
    await keys(rendered, '/agents', KEY.enter, KEY.enter);
    const opened = await until(() => frame(rendered).includes('── transcript') && frame(rendered));
    expect(opened).toMatch(/● list_dir \.\n● bash while/);
    writeFileSync(go, '');
    try {
      const done = await until(() => frame(rendered).includes('Both done.') && frame(rendered));
      expect(done).toMatch(/● list_dir \.\n {2}⎿ [^\n]*\n● bash while[^\n]*\n {2}⎿ went\nBoth done\./);
      expect(count(done, '● list_dir .')).toBe(1);
    } finally {
      rmSync(go, { force: true });
    }
  });

  it("a finished job's view stays readable; a message from it runs the job again and the view shows the new run", async () => {
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) return { text: request.messages.length === 1 ? 'The **first** run.' : 'The second run.' };
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'run twice' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done' && frame(rendered).includes('Started.'));
    await keys(rendered, '/agents', KEY.enter, KEY.enter);
    const done = await until(() => frame(rendered).includes('The first run.') && frame(rendered));
    expect(done).toContain('sub-1 · explore · done');
    expect(done).not.toContain('x stop');
    await keys(rendered, KEY.enter, 'once more', KEY.enter);
    await until(() => frame(rendered).includes('sent: sub-1 runs again with your message'));
    // The new run's opening message is written without an event: the view reads the file again when the run's step ends.
    const again = await until(() => frame(rendered).includes('The second run.') && frame(rendered));
    expect(again).toMatch(/The first run\.\n[\s\S]*› once more\n[\s\S]*The second run\./);
    expect(count(again, 'The first run.')).toBe(1);
    expect(count(again, '› once more')).toBe(1);
  });

  it('an approval waiting while the view is open shows as a banner; Esc goes back to answer it', async () => {
    const held = gate();
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) {
        if (lastText(request).includes('tool_result')) return { text: 'wrote it' };
        return { wait: held.held, toolCalls: [{ name: 'write_file', args: { path: 'child.txt', content: 'x' } }] };
      }
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'write child.txt', agent: 'general' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Started.'));
    await keys(rendered, '/agents', KEY.enter, KEY.enter);
    await until(() => frame(rendered).includes('── transcript'));
    held.open();
    const banner = await until(() => frame(rendered).includes('! approval waiting') && frame(rendered));
    expect(banner).toContain('! approval waiting: write_file child.txt for sub-1 · Esc to answer it');
    // Its keys stay the view's: y is no answer here.
    await keys(rendered, 'y');
    expect(s.approvals.pending()).toHaveLength(1);
    await keys(rendered, KEY.escape);
    await until(() => frame(rendered).includes('Allow sub-1 to write child.txt (new file)?'));
    await keys(rendered, 'y');
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done');
    expect(s.approvals.pending()).toHaveLength(0);
  });

  it('Ctrl+C twice in the view quits; the view closes first', async () => {
    const stream = fakeStream((request): FakeReply => {
      if (fromChild(request.system)) return { text: 'done here' };
      if (lastText(request).includes('tool_result')) return { text: 'Started.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'a quick look' } }] };
    });
    session = await openTestSession([], { stream, wakeOnComplete: false });
    const s = session;
    const { rendered, until, quits } = await mountApp(s);
    await keys(rendered, 'go', KEY.enter);
    await until(() => s.opened.agents.manager.get('sub-1').state === 'done' && frame(rendered).includes('Started.'));
    await keys(rendered, '/agents', KEY.enter, KEY.enter);
    await until(() => frame(rendered).includes('done here'));
    await keys(rendered, KEY.ctrlC);
    await until(() => frame(rendered).includes('press Ctrl+C again to quit'));
    await keys(rendered, KEY.ctrlC);
    await until(() => quits.count === 1);
    expect(frame(rendered)).not.toContain('── transcript');
  });
});
