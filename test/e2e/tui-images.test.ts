import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { b64, pngImage } from '../support/images.js';
import { useTui } from '../support/tmux.js';

/** `@shot.png` in a prompt typed at the terminal, in the built binary under tmux. */
const tui = useTui();

describe('an image named in a typed prompt', () => {
  it('is attached: the model gets it before the text, the transcript shows a line for it', async () => {
    const pane = await tui.start();
    const shot = pngImage(4, 3);
    writeFileSync(path.join(pane.project, 'shot.png'), shot);
    tui.mock.script({ text: 'A red rectangle.' });
    pane.type('what is in @shot.png here?');
    const screen = await pane.screen(/A red rectangle\./);
    expect(screen).toContain(`[image: ${shot.length} B png]`);
    const content = tui.mock.requests[0]!.body.messages[0].content;
    expect(content[0]).toEqual({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(shot) } });
    expect(content[1]).toMatchObject({ type: 'text', text: 'what is in @shot.png here?' });

    // A file that is no image is said so, and the turn runs without it.
    writeFileSync(path.join(pane.project, 'notes.png'), 'plain text');
    tui.mock.script({ text: 'Nothing to see.' });
    pane.type('and @notes.png then?');
    await pane.screen(/Nothing to see\./);
    await pane.screen(/@notes\.png: its bytes are not a PNG, JPEG, GIF or WebP image/);
    expect(JSON.stringify(tui.mock.requests[1]!.body.messages.at(-1))).not.toContain('"type":"image"');
  });
});
