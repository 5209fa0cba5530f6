import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeStream } from '../support/fake-stream.js';
import { KEY, type TestSession, frame, keys, mountApp, openTestSession } from './harness.js';

let session: TestSession | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

function projectWithCommands(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-commands-'));
  mkdirSync(path.join(dir, '.claude', 'commands', 'frontend'), { recursive: true });
  writeFileSync(
    path.join(dir, '.claude', 'commands', 'review.md'),
    '---\ndescription: Review code for bugs\nargument-hint: [path]\n---\nReview $ARGUMENTS for bugs.',
  );
  writeFileSync(path.join(dir, '.claude', 'commands', 'frontend', 'component.md'), 'Make a $1 component.');
  // A file named like a built-in: the built-in wins in the TUI.
  writeFileSync(path.join(dir, '.claude', 'commands', 'cost.md'), 'Tell me about costs.');
  return dir;
}

describe('custom commands in the TUI', () => {
  it('/help lists them with their argument hints and descriptions', async () => {
    session = await openTestSession([], { dir: projectWithCommands() });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/help', KEY.enter);
    const text = await until(() => frame(rendered).includes('Custom commands') && frame(rendered));
    expect(text).toMatch(/\/review \[path\]\s+Review code for bugs/);
    expect(text).toMatch(/\/frontend:component\s+Make a \$1 component\./);
  });

  it('submitting /review src sends the expanded body; a built-in name still runs the built-in', async () => {
    const stream = fakeStream([{ text: 'looked' }]);
    session = await openTestSession([], { dir: projectWithCommands(), stream });
    const { rendered, until } = await mountApp(session);
    await keys(rendered, '/review src', KEY.enter);
    await until(() => frame(rendered).includes('looked'));
    expect(JSON.stringify(stream.requests[0]!.messages.at(-1))).toContain('Review src for bugs.');
    await keys(rendered, '/cost', KEY.enter);
    await until(() => frame(rendered).includes('total'));
    expect(stream.requests).toHaveLength(1);
  });
});
