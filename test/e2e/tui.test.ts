import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, type RecordedRequest, type Reply, startMockProvider } from '../support/mock-provider.js';
import { until } from '../support/until.js';

/**
 * The real binary in a real terminal: tmux runs `outrider` against the mock provider,
 * keys go in with send-keys, and the screen comes back with capture-pane.
 */
const repo = path.resolve(import.meta.dirname, '../..');
// A private tmux server, so these tests never touch the user's own tmux sessions.
const socket = `outrider-e2e-${process.pid}`;
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

/** Starts outrider in a fresh 120×40 pane and waits until it is ready for input. */
async function start(): Promise<string> {
  const name = launch([`ANTHROPIC_API_KEY=test`, `ANTHROPIC_BASE_URL=${mock.anthropicBaseURL}`]);
  await screen(name, /\/help/);
  return name;
}

/** Runs outrider in a new pane with a private home, a temp project and these variables. */
function launch(variables: string[]): string {
  const home = tempDir('outrider-home-');
  const project = tempDir('outrider-project-');
  writeFileSync(path.join(project, 'hello.txt'), 'hi from the file\n');
  const name = `tui-${counter++}`;
  // `env -i` keeps the developer's own API keys out of the run.
  const command = ['env', '-i', `PATH=${process.env.PATH}`, 'TERM=xterm-256color', `OUTRIDER_HOME=${home}`, ...variables, process.execPath, path.join(repo, 'bin/outrider.js')].join(' ');
  // tmux runs the command through sh: the echo leaves the exit status on the dead pane.
  tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', name, '-c', project, `${command}; echo "[exit status $?]"`);
  current = name;
  tmux('set-option', '-t', name, 'remain-on-exit', 'on');
  tmux('set-option', '-s', 'escape-time', '0');
  return name;
}

function capture(name: string): string {
  // -J joins lines the terminal wrapped, so long lines match as one.
  return tmux('capture-pane', '-p', '-J', '-t', name);
}

/** Polls the pane until `pattern` shows, or fails with what the screen held. */
function screen(name: string, pattern: RegExp): Promise<string> {
  return until(
    () => {
      const text = capture(name);
      return pattern.test(text) && text;
    },
    { what: `${pattern} on the screen`, intervalMs: 50, observe: () => capture(name) },
  );
}

/** True once the pane's process has exited (remain-on-exit keeps the pane to read). */
const paneDead = (name: string) => tmux('list-panes', '-t', name, '-F', '#{pane_dead}').trim() === '1';

function type(name: string, text: string): void {
  tmux('send-keys', '-t', name, '-l', text);
  tmux('send-keys', '-t', name, 'Enter');
}

function key(name: string, ...keys: string[]): void {
  tmux('send-keys', '-t', name, ...keys);
}

const isChild = (request: RecordedRequest) => request.raw.includes('You are a sub-agent started by another agent');
const lastUserText = (request: RecordedRequest) => {
  const messages = request.body?.messages ?? [];
  return JSON.stringify(messages[messages.length - 1] ?? {});
};

describe('the interactive TUI', () => {
  it('prints a startup error on one line and exits 2', async () => {
    const pane = launch([]);
    await screen(pane, /\[exit status \d+\]/);
    // The wrapped line's first row may have scrolled off when the pane died: read the history too.
    const text = tmux('capture-pane', '-p', '-J', '-S', '-', '-t', pane);
    expect(text).toContain('outrider: no API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY');
    expect(text).toContain('[exit status 2]');
  });

  it('shows a plain answer', async () => {
    const pane = await start();
    mock.script({ text: 'Hello from the mock model.' });
    type(pane, 'say hello');
    const text = await screen(pane, /Hello from the mock model\./);
    expect(text).toContain('› say hello');
  });

  it('shows a tool call and its result, then the answer', async () => {
    const pane = await start();
    mock.script({ toolCalls: [{ name: 'read_file', args: { path: 'hello.txt' } }] }, { text: 'The file greets you.' });
    type(pane, 'what does hello.txt say?');
    const text = await screen(pane, /The file greets you\./);
    expect(text).toMatch(/● read_file hello\.txt/);
    expect(text).toMatch(/⎿ .*hi from the file/);
  });

  it('shows sub-agent rows and the status segment, the completion notice, then /agents', async () => {
    const pane = await start();
    let childReplies = 0;
    // The children answer only once the test has seen them running: no delay to outlast.
    let release = (): void => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    mock.respond(async (request): Promise<Reply> => {
      if (isChild(request)) {
        const n = (childReplies += 1);
        await released;
        return { text: `child answer ${n}` };
      }
      if (lastUserText(request).includes('tool_result')) return { text: 'Two sub-agents are on it.' };
      return {
        toolCalls: [
          { name: 'agent_start', args: { task: 'find the config loader' } },
          { name: 'agent_start', args: { task: 'list the test helpers' } },
        ],
      };
    });
    type(pane, 'investigate with two sub-agents');
    // The parent's answer and both live rows, on one screen (children answer 2.5 s later).
    const busy = await screen(pane, /Two sub-agents are on it\.[\s\S]*sub-2 {2}.*running/);
    expect(busy).toMatch(/sub-1 {2}.*running \d+s · 0 tools/);
    expect(busy).toMatch(/subagents: 2 running \(oldest \d+s\)/);
    expect(busy.indexOf('sub-1  ')).toBeLessThan(busy.indexOf('sub-2  '));
    expect(busy).toContain('Two sub-agents are on it.');

    release();
    const done = await screen(pane, /◆ sub-2 finished/);
    expect(done).toContain('◆ sub-1 finished: find the config loader');
    expect(done).toMatch(/subagents: 2 done/);

    type(pane, '/agents');
    const list = await screen(pane, /Sub-agents \(2\)/);
    expect(list).toMatch(/sub-1\s+done\s+explore.*find the config loader/);
    expect(list).toMatch(/sub-2\s+done\s+explore.*list the test helpers/);
    key(pane, 'Enter');
    const detail = await screen(pane, /Result:/);
    expect(detail).toContain('Task: find the config loader');
    expect(detail).toMatch(/child answer \d/);
  });

  it('Esc interrupts a slow reply and the app stays usable', async () => {
    const pane = await start();
    // Four events (the first 12 characters of text), then the reply stalls until the client hangs up.
    mock.script({ text: 'Streaming slowly, one piece at a time, far too long to wait for.', fault: { kind: 'stall', afterChunks: 4 } });
    type(pane, 'tell me a long story');
    await screen(pane, /Streaming sl/);
    key(pane, 'Escape');
    await screen(pane, /interrupted/);
    mock.script({ text: 'Still here after the interrupt.' });
    type(pane, 'are you there?');
    await screen(pane, /Still here after the interrupt\./);
  });

  it('Ctrl+C twice quits, stopping a running sub-agent', async () => {
    const pane = await start();
    mock.respond((request): Reply => {
      if (isChild(request)) return { fault: { kind: 'hang' } };
      if (lastUserText(request).includes('tool_result')) return { text: 'Started one.' };
      return { toolCalls: [{ name: 'agent_start', args: { task: 'never finishes' } }] };
    });
    type(pane, 'start one that hangs');
    await screen(pane, /sub-1 {2}thinking… {2}running/);
    key(pane, 'C-c');
    await screen(pane, /press Ctrl\+C again to quit/);
    key(pane, 'C-c');
    // The child's request hangs forever: the process can only exit if quitting stops it.
    await until(() => paneDead(pane), { what: 'outrider to exit after the second Ctrl+C', observe: () => capture(pane) });
    await until(() => mock.inFlight() === 0, { what: "the hanging child's request to be closed", observe: () => mock.inFlight() });
    const last = capture(pane);
    expect(last).toContain('[exit status 0]');
    expect(last).toMatch(/outrider --resume \S+/);
  });
});
