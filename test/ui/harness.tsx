import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { render } from 'ink-testing-library';
import type { ReactElement } from 'react';
import type { Job, JobCounters } from '../../src/core/jobs/job-types.js';
import { type StreamFn, emptyUsage } from '../../src/core/providers/types.js';
import { openSession } from '../../src/core/session/open-session.js';
import type { OpenedSession } from '../../src/core/session/opened-session.js';
import { App, type AppProps } from '../../src/ui/App.js';
import type { JobView } from '../../src/ui/state/jobs.js';
import { FakeClock } from '../support/fake-clock.js';
import { until as untilShared } from '../support/until.js';
import { ApprovalBroker } from '../../src/ui/approval-broker.js';
import { type UiSession, uiSessionFrom } from '../../src/ui/ui-session.js';
import { type FakeScript, fakeStream } from '../support/fake-stream.js';

/** Raw key sequences as a terminal sends them. */
export const KEY = {
  enter: '\r',
  escape: '\u001B',
  ctrlA: '\u0001',
  ctrlC: '\u0003',
  ctrlE: '\u0005',
  ctrlK: '\u000B',
  backspace: '\u007F',
  up: '\u001B[A',
  down: '\u001B[B',
  left: '\u001B[D',
  right: '\u001B[C',
} as const;

/** Lets queued promise callbacks, I/O callbacks and React's commits run: no time passes on any clock. */
export async function settle(rounds = 4): Promise<void> {
  for (let i = 0; i < rounds; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * The shared `until` (test/support/until.ts) for the app: between tries it moves `clock` on
 * by `stepMs` so the app's batches flush, and lets the event loop settle; on a miss it
 * shows the last frame.
 */
export function until<T>(
  check: () => T | false | undefined,
  options: { clock?: FakeClock; stepMs?: number; what?: string; rendered?: Rendered; timeoutMs?: number } = {},
): Promise<T> {
  const { clock, rendered } = options;
  return untilShared(check, {
    what: options.what ?? 'a condition',
    timeoutMs: options.timeoutMs ?? 10_000,
    intervalMs: 2,
    observe: rendered ? () => `last frame:\n${frame(rendered)}` : undefined,
    between: async () => {
      clock?.advance(options.stepMs ?? 50);
      await settle(2);
    },
  });
}

export type Rendered = ReturnType<typeof render>;

/** Renders and waits for the first effects, so key handlers are attached before keys are sent. */
export async function mount(tree: ReactElement): Promise<Rendered> {
  const rendered = render(tree);
  await settle();
  return rendered;
}

/**
 * Writes keys one at a time, letting the app handle each and commit its render before the
 * next, as a person's typing would. No clock moves: what a key does at once is seen at once.
 */
export async function keys(rendered: Rendered, ...sequence: string[]): Promise<void> {
  for (const key of sequence) {
    rendered.stdin.write(key);
    await settle();
  }
}

/** Gives the test terminal a size and tells the app, as a real resize does. */
export function resize(rendered: Rendered, size: { columns?: number; rows?: number }): void {
  const stdout = rendered.stdout as unknown as NodeJS.EventEmitter;
  if (size.columns !== undefined) Object.defineProperty(stdout, 'columns', { value: size.columns, configurable: true });
  if (size.rows !== undefined) Object.defineProperty(stdout, 'rows', { value: size.rows, configurable: true });
  stdout.emit('resize');
}

/** The frame with its trailing spaces gone, so line assertions read naturally. */
export function frame(rendered: Rendered): string {
  return (rendered.lastFrame() ?? '')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n');
}

/** A job snapshot with plausible defaults. */
/** A job's counters as the manager publishes them with each child event (zero unless given). */
export function counters(overrides: Partial<JobCounters> = {}): JobCounters {
  return { turns: 0, toolCalls: 0, contextTokens: 0, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, ...overrides };
}

export function job(overrides: Partial<Job> & { number: number }): Job {
  return {
    id: `sub-${overrides.number}`,
    state: 'running',
    definition: 'explore',
    mode: 'typed',
    task: `task ${overrides.number}`,
    createdAt: 0,
    startedAt: 0,
    turns: 1,
    toolCalls: 0,
    contextTokens: 0,
    usage: emptyUsage(),
    ...overrides,
  };
}

/** A job as the UI holds it: the snapshot, what it does now, its tail. */
export function jobView(overrides: Partial<Job> & { number: number }, extra: Partial<Omit<JobView, 'job'>> = {}): JobView {
  return { job: job(overrides), activity: { kind: 'thinking' }, tail: [], owed: false, ...extra };
}

/** A real session (real loop, tools, job manager) whose model is an in-process fake stream. */
export interface TestSession {
  opened: OpenedSession;
  ui: UiSession;
  approvals: ApprovalBroker;
  dir: string;
  close(): Promise<void>;
}

export async function openTestSession(
  script: FakeScript,
  options: {
    stream?: StreamFn;
    dir?: string;
    continue?: boolean;
    wakeOnComplete?: boolean;
    notify?: 'bell' | 'osc9' | 'off';
  } = {},
): Promise<TestSession> {
  const dir = options.dir ?? mkdtempSync(path.join(os.tmpdir(), 'outrider-ui-'));
  const approvals = new ApprovalBroker();
  const opened = await openSession({
    cwd: dir,
    env: { OUTRIDER_HOME: path.join(dir, '.home'), ANTHROPIC_API_KEY: 'test' },
    headless: false,
    flags: {
      ...(options.continue ? { continue: true } : {}),
      ...(options.wakeOnComplete !== undefined ? { wakeOnComplete: options.wakeOnComplete } : {}),
      ...(options.notify ? { notify: options.notify } : {}),
    },
    approver: approvals.approver,
    stream: options.stream ?? fakeStream(script),
  });
  return {
    opened,
    ui: uiSessionFrom(opened),
    approvals,
    dir,
    close: async () => {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Renders the whole app on a session with a fake clock, counting quits. `until` waits for a
 * condition while moving that clock, so batches flush without any real wait.
 */
export async function mountApp(session: TestSession, props: Partial<AppProps> = {}) {
  const quits = { count: 0 };
  const clock = new FakeClock();
  const rendered = await mount(
    <App session={session.ui} approvals={session.approvals} onQuit={() => (quits.count += 1)} clock={clock} {...props} />,
  );
  const wait = <T,>(check: () => T | false | undefined, what?: string) => until(check, { clock, rendered, what });
  return { rendered, quits, clock, until: wait };
}

/** True for a request a sub-agent made (its system prompt carries the role contract). */
export const fromChild = (system: string) => system.includes('You are a sub-agent');
