/**
 * In-process figures, run in a fresh process of the node under test (`node bench/.run.mjs
 * --worker <mode>`): outrider's own CPU per step at a given history length, and the cost of
 * compacting a long history. The model is a fake stream (no HTTP, no SDK), so what is timed is
 * outrider's own work: its history conversion is done, the request body is never serialized.
 * Prints one JSON line.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type WireCache, toAnthropicParams } from '../src/core/providers/anthropic.js';
import type { ModelRequest, StreamEvent, StreamFn, Usage } from '../src/core/providers/types.js';
import { estimateTokens } from '../src/core/session/compaction.js';
import { openSession } from '../src/core/session/open-session.js';
import { makeHistory, storeSession } from './lib/history.js';
import { median } from './lib/stats.js';

const USAGE: Usage = { input: 1000, output: 20, cacheRead: 0, cacheWrite: 0 };

/** A model that reads `files` one per step, then answers; it converts each request as the Anthropic backend would. */
function readingModel(files: string[]): StreamFn {
  let call = 0;
  // Each message converted once, as the backend does (it keeps the JSON: serializing is outside this figure).
  const converted: WireCache = new WeakMap();
  return async function* (request: ModelRequest): AsyncGenerator<StreamEvent> {
    toAnthropicParams(request, converted);
    const step = call++;
    if (step < files.length) {
      const id = `toolu_worker_${step}`;
      const input = { path: files[step]! };
      yield { type: 'tool_call_start', index: 0, id, name: 'read_file' };
      yield { type: 'tool_call_delta', index: 0, argsDelta: JSON.stringify(input) };
      yield { type: 'tool_call_end', index: 0 };
      yield {
        type: 'message_end',
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input }] },
        stopReason: 'tool_use',
        usage: USAGE,
      };
      return;
    }
    yield { type: 'text_delta', text: 'Read them.' };
    yield {
      type: 'message_end',
      message: { role: 'assistant', content: [{ type: 'text', text: 'Read them.' }] },
      stopReason: 'end_turn',
      usage: USAGE,
    };
  };
}

function workspace(name: string, files: number, bytes: number) {
  const base = mkdtempSync(path.join(os.tmpdir(), `outrider-bench-${name}-`));
  const cwd = path.join(base, 'project');
  const home = path.join(base, 'home');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(home, { recursive: true });
  const names: string[] = [];
  for (let i = 1; i <= files; i += 1) {
    writeFileSync(path.join(cwd, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(Math.ceil(bytes / 24)));
    names.push(`file${i}.ts`);
  }
  return { base, cwd, home, files: names, env: { HOME: home, OUTRIDER_HOME: home, ANTHROPIC_API_KEY: 'bench-key-0000' } };
}

const cpuMs = (since?: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

/** CPU per step of `steps`-step turns resumed from `history` messages; warm-up turns first. */
async function stepCost(history: number, steps: number, batches: number): Promise<{ perStepMs: number[] }> {
  const ws = workspace('steps', steps, 1000);
  const stored = makeHistory(history, 300);
  const perStepMs: number[] = [];
  for (let batch = 0; batch < batches + 2; batch += 1) {
    const { id } = storeSession(ws.home, ws.cwd, stored);
    const opened = await openSession({
      cwd: ws.cwd,
      env: ws.env,
      headless: true,
      flags: { resume: id },
      stream: readingModel(ws.files),
    });
    // A collection now, not in the middle of the measured turn (the worker runs with --expose-gc).
    (globalThis as { gc?: () => void }).gc?.();
    const before = process.cpuUsage();
    const result = await opened.session.submit('read the files', new AbortController().signal);
    const spent = cpuMs(before);
    await opened.close();
    if (result.cause.kind !== 'completed' || result.turns !== steps + 1)
      throw new Error(`worker turn ended: ${JSON.stringify(result.cause)}, ${result.turns} turns`);
    // The first two batches warm the JIT up; a long session is warm too.
    if (batch >= 2) perStepMs.push(spent / (steps + 1));
  }
  rmSync(ws.base, { recursive: true, force: true });
  return { perStepMs };
}

/** Compacts a resumed history of about `tokens` tokens once, cold, and times outrider's part of it. */
async function compactionCost(tokens: number): Promise<{ wallMs: number; cpuMs: number; tokens: number; messages: number }> {
  const ws = workspace('compaction', 0, 0);
  let count = 2;
  while (estimateTokens(makeHistory(count, 2700)) < tokens) count += 2;
  const history = makeHistory(count, 2700);
  const { id } = storeSession(ws.home, ws.cwd, history);
  let inModel = { wallMs: 0, cpuMs: 0 };
  const summarizer: StreamFn = async function* () {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const text = 'The user asked for every file to be read; all were read. Nothing is open.';
    const event: StreamEvent = {
      type: 'message_end',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      stopReason: 'end_turn',
      usage: USAGE,
    };
    inModel = { wallMs: performance.now() - wall, cpuMs: cpuMs(cpu) };
    yield event;
  };
  const opened = await openSession({ cwd: ws.cwd, env: ws.env, headless: true, flags: { resume: id }, stream: summarizer });
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const event = await opened.compact(new AbortController().signal);
  const spent = { wallMs: performance.now() - wall - inModel.wallMs, cpuMs: cpuMs(cpu) - inModel.cpuMs };
  await opened.close();
  rmSync(ws.base, { recursive: true, force: true });
  if (event?.type !== 'compact') throw new Error(`compaction did not happen: ${JSON.stringify(event)}`);
  return { ...spent, tokens: estimateTokens(history), messages: history.length };
}

export async function runWorker(args: string[]): Promise<void> {
  const flag = (name: string, fallback: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
  const mode = args[0];
  let result: unknown;
  if (mode === 'steps') {
    const { perStepMs } = await stepCost(flag('--history', 10), flag('--steps', 10), flag('--batches', 9));
    result = { perStepMs: median(perStepMs), samples: perStepMs };
  } else if (mode === 'compaction') {
    result = await compactionCost(flag('--tokens', 150_000));
  } else {
    throw new Error(`unknown worker mode ${mode}`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
