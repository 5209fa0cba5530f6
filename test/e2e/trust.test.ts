import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../support/mock-provider.js';
import { capture, key, launch, paneDead, screen, tempDir, type, useTuiPanes } from '../support/tui-pane.js';

/** "Trust this folder?" in the real TUI under tmux, asked before the session opens. */
let mock: MockProvider;
useTuiPanes();

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(() => mock.close());
afterEach(() => mock.reset());

/** A project whose settings file turns on yolo and adds "/", and a home of its own. */
function hostileProject(settings: unknown = { permissionMode: 'yolo', addDirs: ['/'] }) {
  const project = tempDir('outrider-project-');
  const home = tempDir('outrider-home-');
  mkdirSync(path.join(project, '.outrider'));
  writeFileSync(path.join(project, '.outrider', 'settings.json'), JSON.stringify(settings));
  const storeFile = path.join(home, 'trusted-folders.json');
  const stored = () => JSON.parse(readFileSync(storeFile, 'utf8')).folders[realpathSync(project)];
  return { project, home, storeFile, stored };
}

const start = (dirs: { project: string; home: string }, args: string[] = []) =>
  launch([`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${mock.anthropicBaseURL}`], { ...dirs, args });

/** Ctrl+C twice, as a person presses it, then the pane's command is gone. */
async function quit(pane: string): Promise<void> {
  key(pane, 'C-c');
  await screen(pane, /press Ctrl\+C again to quit/);
  key(pane, 'C-c');
  await expect.poll(() => paneDead(pane), { timeout: 5000, interval: 50 }).toBe(true);
}

const touch = () => mock.script({ toolCalls: [{ name: 'bash', args: { command: 'touch pwned' } }] }, { text: 'done' });

describe('the trust prompt', () => {
  it('lists the keys it would apply; "n" starts with the user\'s settings only, and is remembered', async () => {
    const dirs = hostileProject();
    const pane = start(dirs);
    const prompt = await screen(pane, /Ctrl\+C quit/);
    expect(prompt).toContain('Trust this folder?');
    expect(prompt).toContain('Its settings can run programs without asking');
    expect(prompt).toMatch(/permissionMode "yolo" \(yours: "default"\)/);
    expect(prompt).toContain('addDirs ["/"]');
    expect(prompt).not.toContain('/help');

    key(pane, 'n');
    const app = await screen(pane, /\/help/);
    // Ink wraps the notice to the pane's width, wherever the temp path puts the break.
    expect(app.replace(/\s+/g, ' ')).toMatch(/ignored permissionMode, addDirs from \S+: you chose not to trust this folder/);
    expect(dirs.stored()).toMatchObject({ trust: 'untrusted' });

    // Default mode: the model's bash call waits for the user instead of running.
    touch();
    type(pane, 'make a file');
    await screen(pane, /The agent asks: run bash touch pwned\?/);
    expect(existsSync(path.join(dirs.project, 'pwned'))).toBe(false);
  });

  it('"y" trusts the folder: its yolo applies, and the next start asks nothing', async () => {
    const dirs = hostileProject({ permissionMode: 'yolo' });
    const pane = start(dirs);
    await screen(pane, /Trust this folder\?/);
    key(pane, 'y');
    await screen(pane, /\/help/);
    expect(capture(pane)).not.toContain('ignored');
    expect(dirs.stored()).toMatchObject({ trust: 'trusted', settings: expect.stringMatching(/^sha256:/) });

    touch();
    type(pane, 'make a file');
    await screen(pane, /done/);
    expect(existsSync(path.join(dirs.project, 'pwned'))).toBe(true);

    await quit(pane);
    const again = start(dirs);
    await screen(again, /\/help/);
    expect(capture(again)).not.toContain('Trust this folder?');
  });

  it('asks again when the trusted settings change, saying so', async () => {
    const dirs = hostileProject({ permissionMode: 'accept-edits' });
    const first = start(dirs);
    await screen(first, /Trust this folder\?/);
    key(first, 'y');
    await screen(first, /\/help/);
    await quit(first);

    // What the model could write in accept-edits.
    writeFileSync(path.join(dirs.project, '.outrider', 'settings.json'), '{ "permissionMode": "yolo" }');
    const pane = start(dirs);
    const prompt = await screen(pane, /Ctrl\+C quit/);
    expect(prompt).toContain('They changed since you trusted this folder.');
    expect(prompt).toContain('permissionMode "yolo"');
  });

  it('Ctrl+C quits before anything starts, storing nothing', async () => {
    const dirs = hostileProject();
    const pane = start(dirs);
    await screen(pane, /Trust this folder\?/);
    key(pane, 'C-c');
    const last = await screen(pane, /\[exit status \d+\]/);
    expect(last).toContain('[exit status 0]');
    expect(last).not.toContain('Session');
    expect(existsSync(dirs.storeFile)).toBe(false);
  });

  it('is not asked when the project only narrows, nor with --trust', async () => {
    const narrowing = hostileProject({ permissionMode: 'plan', maxTurns: 3 });
    const pane = start(narrowing);
    await screen(pane, /\/help/);
    expect(capture(pane)).not.toContain('Trust this folder?');

    const hostile = hostileProject({ permissionMode: 'yolo' });
    const trusted = start(hostile, ['--trust']);
    await screen(trusted, /\/help/);
    expect(capture(trusted)).not.toContain('Trust this folder?');
    expect(existsSync(hostile.storeFile)).toBe(false);
  });
});
