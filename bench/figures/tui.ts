/**
 * The TUI's figures (issue 9), the built binary in a real terminal against the mock:
 *
 * - 50 sub-agents streaming text (32 at once, the `--max-agents` cap; the other 18 queued
 *   behind them), in a 120×40 tmux pane. Over the window from the first sub-agent request to
 *   the end of the last sub-agent answer: the TUI process's CPU as % of one core (from
 *   /proc, against a 30 % budget, and beside the same fan-out run headless), Ink's frames per
 *   second (each frame Ink writes to a terminal opens with the synchronized-output marker
 *   `ESC[?2026h`; counted in the bytes pipe-pane kept, against a budget of 20), and the
 *   bytes written to the screen per second, beside the model text streamed in that time.
 * - Launch to a prompt that accepts keys: a key typed into the pty the moment it is spawned
 *   (the app holds keys typed during start-up) shows in the input prompt (`› k`); a bare
 *   `node` writing its first byte into the same kind of pty is the reference.
 */
import type { ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { RecordedRequest, Reply } from '../../test/support/mock-provider.js';
import { until } from '../../test/support/until.js';
import type { BenchContext } from '../lib/context.js';
import { home, outriderEnv, project, tempDir } from '../lib/fixtures.js';
import { BIN, runOk } from '../lib/processes.js';
import { interleave, median, pairedDifference, pairedRatio } from '../lib/stats.js';
import type { Figure } from '../lib/table.js';
import {
  FRAME_START,
  occurrences,
  processCpuMs,
  requireTerminalTools,
  startPane,
  startPty,
  stripEscapes,
} from '../lib/terminal.js';

const CHILDREN = 50;
/** `--max-agents` allows 32 at most: the rest wait in the queue and stream after. */
const AT_ONCE = 32;
/** The mock sends 12 characters an event: one every 40 ms is about 75 tokens a second. */
const CHUNK_MS = 40;
/** 100 events: each sub-agent streams for about 4 s. */
const CHILD_TEXT = 'The module exports a parser, its tests and a small command line. '.repeat(19).slice(0, 1200);
const BUDGET_CPU_PERCENT = 30;
const BUDGET_FRAMES_PER_SECOND = 20;
const LAUNCH_BUDGET_MS = 300;

const isParent = (request: RecordedRequest) =>
  (request.body?.tools ?? []).some((t: { name: string }) => t.name === 'agent_start');
const isChildRequest = (request: RecordedRequest) => !isParent(request);

/** Samples of the measured process at one moment. */
interface Mark {
  at: number;
  cpuMs: number;
  bytes: number;
}

interface Window {
  ms: number;
  cpuMs: number;
  /** Bytes written to the terminal in the window (TUI only). */
  bytes: number;
  frames: number;
}

/**
 * The parent starts CHILDREN sub-agents, then says it waits (and answers wake turns); every
 * sub-agent streams CHILD_TEXT and ends. `onFirstChild` runs when the first child request
 * arrives, before it is answered.
 */
function streamingFanOut(onFirstChild: () => void) {
  let children = 0;
  return (request: RecordedRequest): Reply => {
    const messages = request.body?.messages ?? [];
    if (isParent(request)) {
      if (messages.length === 1) {
        return {
          toolCalls: Array.from({ length: CHILDREN }, (_, i) => ({
            name: 'agent_start',
            args: { task: `Read part ${i + 1} of the code and describe it.`, agent: 'explore' },
          })),
        };
      }
      return { text: 'The sub-agents are working; I will sum up when they report.' };
    }
    children += 1;
    if (children === 1) onFirstChild();
    return { text: CHILD_TEXT, chunkDelayMs: CHUNK_MS };
  };
}

/** Polls the mock until every sub-agent's answer has ended. */
function childrenDone(ctx: BenchContext): Promise<true> {
  return until(
    () => {
      const children = ctx.mock.requests.filter(isChildRequest);
      return children.length === CHILDREN && children.every((r) => r.answeredAt !== undefined);
    },
    {
      what: `${CHILDREN} sub-agents to finish streaming`,
      timeoutMs: 120_000,
      intervalMs: 10,
      observe: () => `${ctx.mock.requests.filter(isChildRequest).length} sub-agent requests`,
    },
  );
}

/** One fan-out in the TUI, in a 120×40 tmux pane. */
async function tuiRun(ctx: BenchContext, dir: string, state: string, serial: number): Promise<Window> {
  const log = path.join(tempDir('tui-logs'), `run-${serial}.log`);
  const pane = startPane({
    name: `tui-${serial}`,
    node: ctx.node,
    cwd: dir,
    env: outriderEnv(ctx.mock, 'anthropic', state),
    // A fan-out of more than 3 would ask first (agents.approve).
    args: ['--max-agents', String(AT_ONCE), '--settings', '{"agents":{"approve":"never"}}'],
    log,
  });
  try {
    await pane.screen(/\/help/);
    const pid = pane.pid();
    const mark = (): Mark => ({ at: performance.now(), cpuMs: processCpuMs(pid), bytes: pane.bytesWritten() });
    let start: Mark | undefined;
    ctx.mock.reset();
    ctx.mock.respond(streamingFanOut(() => (start = mark())));
    pane.type('start the sub-agents');
    await childrenDone(ctx);
    const end = mark();
    if (!start) throw new Error('the window never started');
    // The bytes pipe-pane kept, by offset (latin1: one character a byte).
    const frames = occurrences(pane.output().slice(start.bytes, end.bytes), FRAME_START);
    if (frames === 0) throw new Error(`the TUI wrote no frame in the window; the screen:\n${pane.capture()}`);
    return { ms: end.at - start.at, cpuMs: end.cpuMs - start.cpuMs, bytes: end.bytes - start.bytes, frames };
  } finally {
    pane.close();
    ctx.mock.respond(undefined);
  }
}

/** The same fan-out headless (`-p`), the same window, for the TUI's own share of the CPU. */
async function headlessRun(ctx: BenchContext, dir: string, state: string): Promise<Window> {
  let measured: ChildProcess | undefined;
  const mark = (): Mark => ({ at: performance.now(), cpuMs: processCpuMs(measured!.pid!), bytes: 0 });
  let start: Mark | undefined;
  let end: Promise<Mark> | undefined;
  ctx.mock.reset();
  ctx.mock.respond(streamingFanOut(() => (start = mark())));
  await runOk(
    {
      node: ctx.node,
      args: [
        BIN,
        '-p',
        'start the sub-agents',
        '--output-format',
        'json',
        '--max-agents',
        String(AT_ONCE),
        '--settings',
        '{"agents":{"approve":"never"}}',
      ],
      cwd: dir,
      env: outriderEnv(ctx.mock, 'anthropic', state),
      onSpawn: (child) => {
        measured = child;
        // The run waits for its sub-agents and answers once more: it is alive when they are done.
        end = childrenDone(ctx).then(mark);
        end.catch(() => {});
      },
    },
    `outrider -p with ${CHILDREN} streaming sub-agents`,
  );
  ctx.mock.respond(undefined);
  const last = await end!;
  if (!start) throw new Error('the headless window never started');
  return { ms: last.at - start.at, cpuMs: last.cpuMs - start.cpuMs, bytes: 0, frames: 0 };
}

/** Spawn to the first frame whose input prompt shows a key typed at the spawn; then one more key must echo. */
async function launchToKeys(ctx: BenchContext, dir: string, state: string): Promise<{ readyMs: number; echoMs: number }> {
  const pty = startPty({ command: [ctx.node, BIN], cwd: dir, env: outriderEnv(ctx.mock, 'anthropic', state) });
  const spawned = performance.now();
  try {
    pty.write('k');
    // The terminal echoes `k` itself before the app takes the keys: only the prompt's `› k` counts.
    const ready = await pty.when((text) => stripEscapes(text).includes('› k'));
    pty.write('j');
    const echoed = await pty.when((text) => stripEscapes(text).includes('› kj'), 10_000);
    return { readyMs: ready - spawned, echoMs: echoed - ready };
  } finally {
    await pty.close();
  }
}

async function bareNodeInPty(ctx: BenchContext, dir: string): Promise<number> {
  const pty = startPty({ command: [ctx.node, '-e', "process.stdout.write('ready')"], cwd: dir, env: {} });
  const spawned = performance.now();
  try {
    return (await pty.when((text) => text.includes('ready'))) - spawned;
  } finally {
    await pty.close();
  }
}

export async function tuiFigures(ctx: BenchContext): Promise<Figure[]> {
  requireTerminalTools();
  const { dir } = project('tui', 0, 0);
  const state = home('tui');

  ctx.log('tui: launch to a prompt that accepts keys');
  const launch = await interleave(
    ctx.pairs * 2,
    () => launchToKeys(ctx, dir, state),
    () => bareNodeInPty(ctx, dir),
    {
      warmup: 2,
    },
  );
  const ready = launch.a.map((l) => l.readyMs);
  const echo = median(launch.a.map((l) => l.echoMs));

  ctx.log(`tui: ${CHILDREN} streaming sub-agents in a 120×40 pane, beside the same run headless`);
  let serial = 0;
  const runs = await interleave(
    Math.max(3, Math.ceil(ctx.pairs / 2)),
    () => tuiRun(ctx, dir, state, (serial += 1)),
    () => headlessRun(ctx, dir, state),
  );
  ctx.mock.reset();
  const cpuPercent = runs.a.map((w) => (100 * w.cpuMs) / w.ms);
  const framesPerSecond = runs.a.map((w) => (1000 * w.frames) / w.ms);
  const kbPerSecond = runs.a.map((w) => w.bytes / 1024 / (w.ms / 1000));
  const textKbPerSecond = runs.a.map((w) => (CHILDREN * CHILD_TEXT.length) / 1024 / (w.ms / 1000));
  const windowNote = `window: first sub-agent request to the end of the last answer (median ${(median(runs.a.map((w) => w.ms)) / 1000).toFixed(1)} s); ${CHILDREN} sub-agents, ${AT_ONCE} at once, each streaming ${CHILD_TEXT.length} characters at 12 every ${CHUNK_MS} ms`;
  const name = `${CHILDREN} streaming sub-agents (${AT_ONCE} at once), TUI`;

  return [
    {
      id: 'tui.launch-to-keys',
      name: 'launch to a prompt that accepts keys',
      node: ctx.nodeVersion,
      outrider: median(ready),
      reference: median(launch.b),
      referenceLabel: 'node -e 0 in a pty',
      unit: 'ms',
      comparison: 'difference',
      value: pairedDifference(ready, launch.b),
      target: LAUNCH_BUDGET_MS,
      samples: { outrider: ready, reference: launch.b },
      note: `spawn (in a 120×40 pty from util-linux script) to the first output in which the input prompt shows "› k", k having been typed at the spawn; reference: spawn to the first byte of node writing one word into the same kind of pty. A second key typed then was echoed after a median ${echo.toFixed(1)} ms`,
    },
    {
      id: 'tui.cpu',
      name: `${name}: CPU of one core`,
      node: ctx.nodeVersion,
      outrider: median(cpuPercent),
      reference: BUDGET_CPU_PERCENT,
      referenceLabel: 'budget',
      unit: '%',
      comparison: 'ratio',
      value: median(cpuPercent) / BUDGET_CPU_PERCENT,
      target: 1,
      samples: { outrider: cpuPercent, reference: runs.b.map((w) => (100 * w.cpuMs) / w.ms) },
      note: `user + system CPU of the TUI process from /proc over the ${windowNote}`,
    },
    {
      id: 'tui.cpu-vs-headless',
      name: `${name}: CPU beside headless -p`,
      node: ctx.nodeVersion,
      outrider: median(runs.a.map((w) => w.cpuMs)),
      reference: median(runs.b.map((w) => w.cpuMs)),
      referenceLabel: 'headless',
      unit: 'ms',
      comparison: 'ratio',
      value: pairedRatio(
        runs.a.map((w) => w.cpuMs),
        runs.b.map((w) => w.cpuMs),
      ),
      samples: { outrider: runs.a.map((w) => w.cpuMs), reference: runs.b.map((w) => w.cpuMs) },
      note: `CPU in the window, the TUI against the same fan-out run with -p (the cost of drawing); ${windowNote}`,
    },
    {
      id: 'tui.frames',
      name: `${name}: renders per second`,
      node: ctx.nodeVersion,
      outrider: median(framesPerSecond),
      reference: BUDGET_FRAMES_PER_SECOND,
      referenceLabel: 'budget',
      unit: '/s',
      comparison: 'ratio',
      value: median(framesPerSecond) / BUDGET_FRAMES_PER_SECOND,
      target: 1,
      samples: { outrider: framesPerSecond, reference: runs.a.map(() => BUDGET_FRAMES_PER_SECOND) },
      note: `frames Ink wrote to the terminal (each opens with ESC[?2026h, synchronized output), counted in the bytes tmux's pipe-pane kept; ${windowNote}`,
    },
    {
      id: 'tui.screen-bytes',
      name: `${name}: screen bytes per second`,
      node: ctx.nodeVersion,
      outrider: median(kbPerSecond),
      reference: median(textKbPerSecond),
      referenceLabel: 'model text',
      unit: 'KB/s',
      comparison: 'ratio',
      value: pairedRatio(kbPerSecond, textKbPerSecond),
      samples: { outrider: kbPerSecond, reference: textKbPerSecond },
      note: `bytes written to the terminal in the window, beside the sub-agents' streamed text in the same window; ${windowNote}`,
    },
  ];
}
