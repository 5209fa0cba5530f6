import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../support/mock-provider.js';

/**
 * The sandbox as a person at the terminal meets it: the real binary under tmux (a private
 * server), against the mock provider. Needs bubblewrap, like the other sandbox tests.
 */
const repo = path.resolve(import.meta.dirname, '../..');
const socket = `outrider-e2e-sandbox-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

let mock: MockProvider;
let counter = 0;
let current: string | undefined;
const dirs: string[] = [];

beforeAll(async () => {
  mock = await startMockProvider();
});
afterAll(async () => {
  spawnSync('tmux', ['-L', socket, 'kill-server']);
  await mock.close();
});
afterEach(() => {
  if (current) spawnSync('tmux', ['-L', socket, 'kill-session', '-t', current]);
  current = undefined;
  mock.reset();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
}

/** Starts outrider in a 120×40 pane (PATH as given) and waits until it takes input. */
async function start(options: { path?: string; args?: string[] } = {}): Promise<{ pane: string; project: string }> {
  const home = tempDir('outrider-home-');
  const project = tempDir('outrider-project-');
  writeFileSync(path.join(project, 'hello.txt'), 'hi\n');
  const pane = `sandbox-${counter++}`;
  const command = [
    'env',
    '-i',
    `PATH=${options.path ?? process.env.PATH}`,
    'TERM=xterm-256color',
    `OUTRIDER_HOME=${home}`,
    'ANTHROPIC_API_KEY=test',
    `ANTHROPIC_BASE_URL=${mock.anthropicBaseURL}`,
    process.execPath,
    path.join(repo, 'bin/outrider.js'),
    ...(options.args ?? []),
  ].join(' ');
  tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', pane, '-c', project, command);
  current = pane;
  tmux('set-option', '-s', 'escape-time', '0');
  await screen(pane, /\/help/);
  return { pane, project };
}

async function screen(pane: string, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let text = '';
  while (Date.now() < deadline) {
    text = tmux('capture-pane', '-p', '-J', '-t', pane);
    if (pattern.test(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${pattern}; the screen was:\n${text}`);
}

function type(pane: string, text: string): void {
  tmux('send-keys', '-t', pane, '-l', text);
  tmux('send-keys', '-t', pane, 'Enter');
}

/** Processes whose command line mentions `needle`. */
function processesWith(needle: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('the sandbox in the TUI', () => {
  it('Esc stops an auto-allowed command that never ends, inside the sandbox, and the app stays usable', async () => {
    const { pane, project } = await start();
    const file = path.join(project, 'hello.txt');
    mock.script({ toolCalls: [{ name: 'bash', args: { command: `tail -f ${file}` } }] });
    type(pane, 'follow the file');
    await screen(pane, /● bash tail -f/);
    await expect.poll(() => processesWith(`tail\0-f\0${file}`).length, { timeout: 5000, interval: 50 }).toBe(1);
    // It runs in the sandbox's own pid namespace: two pids, the outer one and the inner one.
    const [tail] = processesWith(`tail\0-f\0${file}`);
    const nspid =
      readFileSync(`/proc/${tail}/status`, 'utf8')
        .match(/^NSpid:\s+(.*)$/m)?.[1]
        ?.split(/\s+/) ?? [];
    expect(nspid.length).toBeGreaterThanOrEqual(2);
    tmux('send-keys', '-t', pane, 'Escape');
    await screen(pane, /interrupted/);
    await expect.poll(() => processesWith(`tail\0-f\0${file}`).length, { timeout: 5000, interval: 50 }).toBe(0);
    mock.script({ text: 'Still here.' });
    type(pane, 'are you there?');
    await screen(pane, /Still here\./);
  });

  it('says once at start-up when bubblewrap is missing', async () => {
    // node alone on PATH: no bwrap to find.
    const bin = tempDir('outrider-bin-');
    execFileSync('ln', ['-s', process.execPath, path.join(bin, 'node')]);
    const { pane } = await start({ path: bin });
    const text = await screen(pane, /no OS sandbox/);
    expect(text).toMatch(/no OS sandbox: bwrap was not found on PATH\. Commands judged read-only run on the command check alone/);
  });
});
