import { afterEach, describe, expect, it } from 'vitest';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from '../harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

const FOCUS_OUT = '\u001B[O';
const FOCUS_IN = '\u001B[I';
const written = (rendered: { stdout: unknown }) => (rendered.stdout as { frames: string[] }).frames.join('');

describe('notifications', () => {
  it('rings the bell when a turn finishes while the terminal is not in front, and only then', async () => {
    session = await openTestSession([{ text: 'First.' }, { text: 'Second.' }]);
    const { rendered, until } = await mountApp(session);
    await keys(rendered, 'one', KEY.enter);
    await until(() => frame(rendered).includes('First.'));
    expect(written(rendered)).not.toContain('\u0007');
    await keys(rendered, FOCUS_OUT, 'two', KEY.enter);
    await until(() => frame(rendered).includes('Second.') && written(rendered).includes('\u0007'));
    // The focus reports never reach the input.
    expect(frame(rendered)).not.toContain('[O');
    expect(frame(rendered)).toContain('› two');
    await keys(rendered, FOCUS_IN);
  });

  it('sends an OSC 9 notification instead when the setting says so, naming what finished', async () => {
    session = await openTestSession([{ text: 'Done.' }], { notify: 'osc9' });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, FOCUS_OUT, 'go', KEY.enter);
    await until(() => written(rendered).includes('\u001B]9;outrider: the turn finished\u0007'));
  });

  it('stays silent with notify off', async () => {
    session = await openTestSession([{ text: 'Quiet.' }], { notify: 'off' });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, FOCUS_OUT, 'go', KEY.enter);
    await until(() => frame(rendered).includes('Quiet.'));
    expect(written(rendered)).not.toContain('\u0007');
  });
});
