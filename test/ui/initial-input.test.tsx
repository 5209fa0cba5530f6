import { afterEach, describe, expect, it } from 'vitest';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('text typed while the app started', () => {
  it('is in the input from the first frame, and editing and sending go on from it', async () => {
    session = await openTestSession([{ text: 'Heard you early.' }]);
    const s = session;
    const { rendered, until } = await mountApp(s, { initialInput: 'hello' });
    expect(rendered.frames[0]).toContain('› hello');
    await keys(rendered, ' early', KEY.backspace);
    expect(frame(rendered)).toContain('› hello earl');
    await keys(rendered, 'y', KEY.enter);
    await until(() => frame(rendered).includes('Heard you early.'));
    expect(JSON.stringify(s.opened.session.messages()[0])).toContain('hello early');
  });

  it('opens the menu its text asks for, as typing it would', async () => {
    session = await openTestSession([]);
    const { rendered } = await mountApp(session, { initialInput: '/hel' });
    expect(frame(rendered)).toContain('› /hel');
    expect(frame(rendered)).toContain('/help');
  });
});
