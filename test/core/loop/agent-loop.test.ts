import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type LoopConfig, type LoopResult, agentLoop } from '../../../src/core/loop/agent-loop.js';
import type { LoopEvent } from '../../../src/core/loop/events.js';
import {
  INVALID_JSON_KEY,
  type Message,
  ProviderError,
  type StreamFn,
  type ToolResultBlock,
} from '../../../src/core/providers/types.js';
import { defineTool } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { ToolRegistry } from '../../../src/core/tools/registry.js';
import { ResultStore } from '../../../src/core/tools/result-store.js';
import { type Barrier, barrier } from '../../support/barrier.js';
import { type FakeScript, fakeStream } from '../../support/fake-stream.js';
import { until } from '../../support/until.js';
import { FakeClock, settle } from '../../support/fake-clock.js';

const workspace = makeWorkspace(mkdtempSync(path.join(os.tmpdir(), 'outrider-loop-')));

/** One turn of the event loop: the tools' stand-in for work, so calls run together overlap. */
const aTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

interface ToolHooks {
  log?: string[];
  /** Every `look` waits here, so `look`s can only finish if they ran together. */
  gate?: Barrier;
  /** Called as the `wait` tool starts. */
  onWait?: () => void;
}

function makeTools({ log = [], gate, onWait }: ToolHooks = {}) {
  const active = { now: 0, max: 0 };
  const track = async <T>(fn: () => Promise<T>) => {
    active.now += 1;
    active.max = Math.max(active.max, active.now);
    try {
      return await fn();
    } finally {
      active.now -= 1;
    }
  };
  const registry = new ToolRegistry([
    defineTool({
      name: 'look',
      description: 'read something',
      kind: 'read-only',
      // `after`: finish only once that look has finished (a later call that ends first).
      schema: z.object({ what: z.string(), after: z.string().optional() }),
      execute: (args) =>
        track(async () => {
          log.push(`look:${args.what}:start`);
          await aTurn();
          await gate?.arrive();
          if (args.after)
            await until(() => log.includes(`look:${args.after}:end`), { what: `look ${args.after} to end`, intervalMs: 1 });
          log.push(`look:${args.what}:end`);
          return `saw ${args.what}`;
        }),
    }),
    defineTool({
      name: 'change',
      description: 'change something',
      kind: 'mutating',
      schema: z.object({ what: z.string() }),
      execute: (args) =>
        track(async () => {
          log.push(`change:${args.what}:start`);
          await aTurn();
          log.push(`change:${args.what}:end`);
          return `changed ${args.what}`;
        }),
    }),
    defineTool({
      name: 'explode',
      description: 'always throws',
      kind: 'read-only',
      schema: z.object({}),
      execute: async () => {
        throw new Error('disk on fire');
      },
    }),
    defineTool({
      name: 'wait',
      description: 'waits until aborted',
      kind: 'mutating',
      schema: z.object({}),
      execute: (_args, ctx) =>
        new Promise((_, reject) => {
          const stop = () => reject(new Error('stopped'));
          if (ctx.signal.aborted) return stop();
          ctx.signal.addEventListener('abort', stop, { once: true });
          onWait?.();
        }),
    }),
    defineTool({
      name: 'big',
      description: 'large output',
      kind: 'read-only',
      schema: z.object({}),
      execute: async () => 'x'.repeat(100_000),
    }),
  ]);
  return { registry, active };
}

async function run(
  script: FakeScript,
  options: { config?: Partial<LoopConfig>; signal?: AbortSignal; history?: Message[]; tools?: ToolHooks } = {},
) {
  const stream = fakeStream(script);
  const { registry, active } = makeTools(options.tools);
  const events: LoopEvent[] = [];
  const context = {
    system: 'SYSTEM',
    tools: registry,
    workspace,
    messages: options.history ?? [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }],
  };
  const gen = agentLoop(
    context,
    { stream, model: 'm', maxTokens: 1000, ...options.config },
    options.signal ?? new AbortController().signal,
  );
  let result: LoopResult;
  for (;;) {
    const next = await gen.next();
    if (next.done) {
      result = next.value;
      break;
    }
    events.push(next.value);
  }
  // The loop appended to the caller's context: that is the history after the run.
  return { result: { ...result, history: context.messages }, events, stream, active };
}

/** Runs a loop to its end, returning its result. */
async function finish(gen: AsyncGenerator<LoopEvent, LoopResult>): Promise<LoopResult> {
  let next = await gen.next();
  while (!next.done) next = await gen.next();
  return next.value;
}

const toolResults = (message: Message) => message.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');

describe('agentLoop', () => {
  it('ends when a response has no tool calls', async () => {
    const { result, events } = await run([{ text: 'hello' }]);
    expect(result.cause).toEqual({ kind: 'completed' });
    expect(result.turns).toBe(1);
    expect(result.newMessages).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'hello' }] }]);
    expect(events.map((e) => e.type)).toEqual(['turn_start', 'text_delta', 'usage', 'message_end', 'turn_end', 'run_end']);
  });

  it('runs tool calls and sends their results back in call order', async () => {
    const log: string[] = [];
    const { result, stream } = await run(
      [
        {
          toolCalls: [
            { name: 'look', args: { what: 'a', after: 'b' } },
            { name: 'look', args: { what: 'b' } },
          ],
        },
        { text: 'done' },
      ],
      { tools: { log } },
    );
    expect(result.cause.kind).toBe('completed');
    // b finished first, yet a's result comes first.
    expect(log.indexOf('look:b:end')).toBeLessThan(log.indexOf('look:a:end'));
    const second = stream.requests[1]!;
    const results = toolResults(second.messages[2]!);
    expect(results.map((r) => r.content)).toEqual(['saw a', 'saw b']);
    expect(results.map((r) => r.toolUseId)).toEqual(['call_1_1', 'call_1_2']);
  });

  it('runs read-only calls concurrently and mutating batches one at a time', async () => {
    const gate = barrier(2, { what: 'look calls' });
    const readOnly = await run(
      [
        {
          toolCalls: [
            { name: 'look', args: { what: 'a' } },
            { name: 'look', args: { what: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
      { tools: { gate } },
    );
    gate.assertOpened();
    expect(readOnly.active.max).toBe(2);
    const log: string[] = [];
    const mixed = await run(
      [
        {
          toolCalls: [
            { name: 'look', args: { what: 'a' } },
            { name: 'change', args: { what: 'b' } },
          ],
        },
        { text: 'ok' },
      ],
      { tools: { log } },
    );
    expect(mixed.active.max).toBe(1);
    expect(log).toEqual(['look:a:start', 'look:a:end', 'change:b:start', 'change:b:end']);
  });

  it('turns an unknown tool, bad JSON, bad arguments and a throwing tool into error results', async () => {
    const { result, stream } = await run([
      {
        toolCalls: [
          { name: 'nope', args: {} },
          { name: 'look', args: { [INVALID_JSON_KEY]: '{"what": ' } },
          { name: 'look', args: { what: 42 } },
          { name: 'explode', args: {} },
        ],
      },
      { text: 'recovered' },
    ]);
    expect(result.cause.kind).toBe('completed');
    const results = toolResults(stream.requests[1]!.messages[2]!);
    expect(results.every((r) => r.isError)).toBe(true);
    expect(results[0]!.content).toMatch(/Tool "nope" is not available\. Available tools: look, change, explode/);
    expect(results[1]!.content).toMatch(/not valid JSON/);
    expect(results[2]!.content).toMatch(/Invalid arguments for look: what:/);
    expect(results[3]!.content).toBe('explode failed: disk on fire');
  });

  it('gives each call its own result even when the model repeats an id', async () => {
    const { result, events } = await run([
      {
        toolCalls: [
          { id: 'toolu_dup', name: 'change', args: { what: 'a' } },
          { id: 'toolu_dup', name: 'change', args: { what: 'b' } },
        ],
      },
      { text: 'ok' },
    ]);
    const results = toolResults(result.history[2]!);
    expect(results.map((r) => r.content)).toEqual(['changed a', 'changed b']);
    // Every call's start comes before its end, in call order.
    expect(events.filter((e) => e.type === 'tool_start' || e.type === 'tool_end').map((e) => e.type)).toEqual([
      'tool_start',
      'tool_end',
      'tool_start',
      'tool_end',
    ]);
  });

  it('stops a model that makes the same failing call over and over, and only that one', async () => {
    const stuck = await run(() => ({ toolCalls: [{ name: 'explode', args: {} }] }));
    expect(stuck.result.cause).toMatchObject({ kind: 'limit', limit: 'repeatedFailure' });
    expect(stuck.stream.requests).toHaveLength(5);
    // Failing, but each time differently: the model is trying things, so it goes on to its own end.
    let n = 0;
    const trying = await run(() => (++n < 8 ? { toolCalls: [{ name: 'look', args: { what: n } }] } : { text: 'done' }));
    expect(trying.result.cause).toEqual({ kind: 'completed' });
  });

  it('stops at maxTurns, maxTotalTokens and maxDuration, naming the limit', async () => {
    const loop: FakeScript = () => ({ toolCalls: [{ name: 'look', args: { what: 'x' } }] });
    const turns = await run(loop, { config: { limits: { maxTurns: 3 } } });
    expect(turns.result.cause).toMatchObject({ kind: 'limit', limit: 'maxTurns' });
    expect(turns.stream.requests).toHaveLength(3);
    // The last tool batch still got its results: the history stays valid.
    expect(turns.result.history.at(-1)!.role).toBe('user');

    const tokens = await run(() => ({ toolCalls: [{ name: 'look', args: { what: 'x' } }], usage: { input: 600 } }), {
      config: { limits: { maxTotalTokens: 1000 } },
    });
    expect(tokens.result.cause).toMatchObject({ kind: 'limit', limit: 'maxTotalTokens' });
    expect(tokens.stream.requests).toHaveLength(2);

    // The duration limit runs on the loop's timers: a hanging reply ends when the fake clock passes it.
    const clock = new FakeClock();
    const hanging = run([{ hang: true }], { config: { limits: { maxDuration: 300_000 }, timers: clock, now: clock.now } });
    await until(() => clock.pending() === 1, { what: 'the duration timer to be set' });
    clock.advance(299_999);
    await settle();
    expect(clock.pending()).toBe(1);
    clock.advance(1);
    const duration = await hanging;
    expect(duration.result.cause).toMatchObject({ kind: 'limit', limit: 'maxDuration', detail: 'ran past the limit of 300s' });
  });

  it('on abort mid-stream keeps the text already shown and ends as aborted', async () => {
    const controller = new AbortController();
    const stream = fakeStream([{ hang: true }]);
    const gen = agentLoop(
      {
        system: 's',
        tools: new ToolRegistry(),
        workspace,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      },
      { stream, model: 'm', maxTokens: 10 },
      controller.signal,
    );
    const done = finish(gen);
    // The reply hangs: only the abort can end this run.
    await until(() => stream.requests.length === 1, { what: 'the model call' });
    controller.abort();
    expect((await done).cause).toEqual({ kind: 'aborted' });
  });

  it('on abort after some text streamed keeps that text as an assistant message', async () => {
    const controller = new AbortController();
    const seen: Message[] = [];
    // Streams two deltas, then holds the message open until the run is aborted.
    const stream: StreamFn = async function* (_request, signal) {
      yield { type: 'text_delta', text: 'Looking at the ' };
      yield { type: 'text_delta', text: 'config loader' };
      await new Promise<never>((_, reject) => {
        const fail = () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
        if (signal.aborted) fail();
        signal.addEventListener('abort', fail, { once: true });
      });
    };
    const context = {
      system: 's',
      tools: new ToolRegistry(),
      workspace,
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'go' }] }],
    };
    const gen = agentLoop(context, { stream, model: 'm', maxTokens: 10, onMessage: (m) => seen.push(m) }, controller.signal);
    const events: LoopEvent[] = [];
    let next = await gen.next();
    while (!next.done) {
      events.push(next.value);
      // Abort once the second delta was shown: what the user saw must survive.
      if (next.value.type === 'text_delta' && next.value.text === 'config loader') controller.abort();
      next = await gen.next();
    }
    const partial: Message = { role: 'assistant', content: [{ type: 'text', text: 'Looking at the config loader' }] };
    expect(next.value.cause).toEqual({ kind: 'aborted' });
    expect(next.value.newMessages).toEqual([partial]);
    expect(context.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'go' }] }, partial]);
    expect(seen).toEqual([partial]);
    expect(events.filter((e) => e.type === 'message_end')).toEqual([]);
  });

  it('on abort after a retry keeps only the text of the attempt in flight', async () => {
    const controller = new AbortController();
    const stream: StreamFn = async function* (_request, signal) {
      yield { type: 'text_delta', text: 'first attempt, thrown away' };
      yield { type: 'retry', attempt: 1, maxRetries: 4, delayMs: 0, reason: 'overloaded (529)' };
      yield { type: 'text_delta', text: 'second attempt' };
      controller.abort();
      if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
    };
    const gen = agentLoop(
      {
        system: 's',
        tools: new ToolRegistry(),
        workspace,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      },
      { stream, model: 'm', maxTokens: 10 },
      controller.signal,
    );
    let next = await gen.next();
    while (!next.done) next = await gen.next();
    expect(next.value.cause).toEqual({ kind: 'aborted' });
    expect(next.value.newMessages).toEqual([{ role: 'assistant', content: [{ type: 'text', text: 'second attempt' }] }]);
  });

  it('on abort before any text streamed adds no assistant message', async () => {
    const controller = new AbortController();
    const stream: StreamFn = async function* (_request, signal) {
      controller.abort();
      if (signal.aborted) throw Object.assign(new Error('aborted'), { name: 'AbortError' });
      yield { type: 'text_delta', text: 'never' };
    };
    const gen = agentLoop(
      {
        system: 's',
        tools: new ToolRegistry(),
        workspace,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }],
      },
      { stream, model: 'm', maxTokens: 10 },
      controller.signal,
    );
    let next = await gen.next();
    while (!next.done) next = await gen.next();
    expect(next.value.cause).toEqual({ kind: 'aborted' });
    expect(next.value.newMessages).toEqual([]);
  });

  it('on abort mid-tool answers every unanswered call so the history stays valid', async () => {
    const controller = new AbortController();
    // Aborted as the second call starts: the first has finished, the third has not begun.
    const { result } = await run(
      [
        {
          toolCalls: [
            { name: 'change', args: { what: 'a' } },
            { name: 'wait', args: {} },
            { name: 'change', args: { what: 'c' } },
          ],
        },
      ],
      { signal: controller.signal, tools: { onWait: () => controller.abort() } },
    );
    expect(result.cause).toEqual({ kind: 'aborted' });
    const last = result.history.at(-1)!;
    const results = toolResults(last);
    expect(results.map((r) => r.toolUseId)).toEqual(['call_1_1', 'call_1_2', 'call_1_3']);
    expect(results[0]!.content).toBe('changed a');
    expect(results[1]!.isError).toBe(true);
    expect(results[2]!.content).toMatch(/^Interrupted/);
  });

  it('injects boundary messages before each model call and reports batches before they run', async () => {
    const batches: string[][] = [];
    let boundary = 0;
    const seen: Message[] = [];
    const { stream, events } = await run([{ toolCalls: [{ name: 'look', args: { what: 'a' } }] }, { text: 'end' }], {
      config: {
        boundaryMessages: () => {
          boundary += 1;
          return boundary === 2 ? [{ role: 'user', content: [{ type: 'text', text: 'NOTICE' }] }] : [];
        },
        beforeToolBatch: (calls) => batches.push(calls.map((c) => c.name)),
        onMessage: (m) => seen.push(m),
      },
    });
    expect(batches).toEqual([['look']]);
    expect(stream.requests[1]!.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'NOTICE' }] });
    expect(events.some((e) => e.type === 'injected')).toBe(true);
    expect(seen.map((m) => m.role)).toEqual(['assistant', 'user', 'user', 'assistant']);
  });

  it('keeps every request a byte prefix of the next', async () => {
    const { stream } = await run([
      { toolCalls: [{ name: 'look', args: { what: 'a' } }] },
      { toolCalls: [{ name: 'look', args: { what: 'b' } }] },
      { text: 'end' },
    ]);
    for (let i = 1; i < stream.requests.length; i += 1) {
      const before = stream.requests[i - 1]!;
      const after = stream.requests[i]!;
      expect(after.system).toBe(before.system);
      expect(JSON.stringify(after.tools)).toBe(JSON.stringify(before.tools));
      expect(after.messages.slice(0, before.messages.length)).toEqual(before.messages);
    }
  });

  it('ends with the provider error message when the provider gives up', async () => {
    const { result } = await run([
      { error: new ProviderError('Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.') },
    ]);
    expect(result.cause).toEqual({ kind: 'error', message: 'Anthropic rejected the API key (401): check ANTHROPIC_API_KEY.' });
  });

  it('compacts once and retries when the context is too long, saying so', async () => {
    const tooLong = new ProviderError('prompt is too long', { contextTooLong: true });
    const compactedTo: Message[] = [{ role: 'user', content: [{ type: 'text', text: 'summary' }] }];
    const replacement = async () => ({
      history: compactedTo,
      event: { type: 'compact' as const, removedMessages: 1, summaryChars: 7 },
    });
    const { result, stream, events } = await run([{ error: tooLong }, { text: 'fits now' }], {
      config: { onContextTooLong: replacement },
    });
    expect(result.cause.kind).toBe('completed');
    expect(stream.requests[1]!.messages).toEqual(compactedTo);
    expect(events).toContainEqual({ type: 'compact', removedMessages: 1, summaryChars: 7 });
    const twice = await run([{ error: tooLong }, { error: tooLong }], { config: { onContextTooLong: replacement } });
    expect(twice.result.cause).toEqual({ kind: 'error', message: 'prompt is too long' });
  });

  it('lets a hook replace the history before any model call (compaction between steps)', async () => {
    const seen: number[] = [];
    const { stream, events } = await run(
      [
        { toolCalls: [{ name: 'look', args: { what: 'a' } }] },
        { toolCalls: [{ name: 'look', args: { what: 'b' } }] },
        { text: 'end' },
      ],
      {
        config: {
          beforeModelCall: async (history) => {
            seen.push(history.length);
            if (history.length !== 5) return undefined;
            return {
              history: [{ role: 'user', content: [{ type: 'text', text: 'SUMMARY' }] }, ...history.slice(3)],
              event: { type: 'compact', removedMessages: 3, summaryChars: 7 },
            };
          },
        },
      },
    );
    expect(seen).toEqual([1, 3, 5]);
    expect(stream.requests[2]!.messages[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'SUMMARY' }] });
    expect(stream.requests[2]!.messages).toHaveLength(3);
    expect(events.filter((e) => e.type === 'compact')).toHaveLength(1);
  });

  it('checks limits before injecting boundary messages, so no notice is left unseen', async () => {
    let offered = 0;
    const { result } = await run(() => ({ toolCalls: [{ name: 'look', args: { what: 'x' } }] }), {
      config: {
        limits: { maxTurns: 1 },
        boundaryMessages: () => {
          offered += 1;
          return [];
        },
      },
    });
    expect(result.cause).toMatchObject({ kind: 'limit', limit: 'maxTurns' });
    expect(offered).toBe(1);
  });

  it('goes on when a message arrives as the model answers: follow-ups join the history and the run continues', async () => {
    const late: Message = { role: 'user', content: [{ type: 'text', text: 'LATE MESSAGE' }] };
    let asked = 0;
    const { stream, result, events } = await run([{ text: 'first answer' }, { text: 'second answer' }], {
      config: {
        followUpMessages: () => {
          asked += 1;
          return asked === 1 ? [late] : [];
        },
      },
    });
    expect(stream.requests).toHaveLength(2);
    expect(stream.requests[1]!.messages.at(-1)).toEqual(late);
    expect(stream.requests[1]!.messages.at(-2)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'first answer' }],
    });
    expect(events.filter((e) => e.type === 'injected')).toHaveLength(1);
    expect(result.cause).toEqual({ kind: 'completed' });
    expect(asked).toBe(2);
  });

  it('does not take follow-ups once a limit is reached, so none is taken and left unanswered', async () => {
    let asked = 0;
    const { stream, result } = await run([{ text: 'only answer' }], {
      config: {
        limits: { maxTurns: 1 },
        followUpMessages: () => {
          asked += 1;
          return [{ role: 'user', content: [{ type: 'text', text: 'LATE' }] }];
        },
      },
    });
    expect(asked).toBe(0);
    expect(stream.requests).toHaveLength(1);
    expect(result.cause).toEqual({ kind: 'completed' });
  });

  it('asks the gate before running a tool and reports its refusal', async () => {
    const { stream } = await run([{ toolCalls: [{ name: 'change', args: { what: 'a' } }] }, { text: 'ok' }], {
      config: { gate: async () => ({ allowed: false, message: 'denied: plan mode' }) },
    });
    expect(toolResults(stream.requests[1]!.messages[2]!)[0]).toMatchObject({ content: 'denied: plan mode', isError: true });
  });

  it('shapes large outputs in one place, the limiter', async () => {
    const store = new ResultStore();
    const { stream } = await run([{ toolCalls: [{ name: 'big', args: {} }] }, { text: 'ok' }], {
      config: { limitOutput: store.limiter(1000) },
    });
    const content = toolResults(stream.requests[1]!.messages[2]!)[0]!.content;
    expect(content.length).toBeLessThan(10_000);
    expect(content).toMatch(/big output is 100000 characters, 1 lines; stored as result_id r1/);
    expect(store.get('r1')).toHaveLength(100_000);
  });
});
