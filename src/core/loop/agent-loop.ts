import {
  type Message,
  type ModelRequest,
  type StreamFn,
  type ToolResultBlock,
  type ToolSchema,
  type ToolUseBlock,
  type Usage,
  addUsage,
  emptyUsage,
  ProviderError,
  toolUses,
} from '../providers/types.js';
import { type Timers, realTimers } from '../platform/timers.js';
import { type Workspace, runsAlongside } from '../tools/define.js';
import type { OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { AsyncQueue } from './async-queue.js';
import type { LoopEvent, StopCause } from './events.js';
import { type Limits, durationLimit, reachedLimit, toolCallLimit } from './limits.js';
import { afterBatch, noRepeats } from './repeat-detector.js';
import { type LoopHooks, MAX_STOP_HOOK_CONTINUES } from './loop-hooks.js';
import {
  type PreparedCall,
  type ToolGate,
  interruptedResult,
  notRunResult,
  overLimitResult,
  prepareCall,
  runPreparedCall,
} from './tool-runner.js';

/**
 * What the loop works with: the byte-stable system prompt, the tools, and the conversation.
 * The caller owns `messages`: the loop appends to it in place and, when a hook compacts the
 * history, replaces it on this object, so the caller always reads the live conversation.
 */
export interface LoopContext {
  system: string;
  messages: Message[];
  tools: ToolRegistry;
  workspace: Workspace;
  /** Schemas to send instead of `tools.schemas()` (fork mode replays the parent's). */
  schemas?: ToolSchema[];
}

/** How the loop runs; every hook is optional. */
export interface LoopConfig {
  stream: StreamFn;
  model: string;
  maxTokens: number;
  limits?: Limits;
  gate?: ToolGate;
  limitOutput?: OutputLimiter;
  /** Messages to inject at each step boundary, before the next model call (sub-agent notices). */
  boundaryMessages?: () => Message[];
  /**
   * Asked when the model answers without a tool call, before the run would end: messages it
   * returns join the history and the run goes on (a message sent to a sub-agent just as it
   * finished is read, not lost). Not asked once a limit is reached.
   */
  followUpMessages?: () => Message[];
  /** Called with every tool batch before any of it runs (the job manager reserves ids). */
  beforeToolBatch?: (calls: ToolUseBlock[]) => void;
  /** Called with every message as it joins the history (transcripts). */
  onMessage?: (message: Message) => void;
  /**
   * Called before every model call: a shorter history (and the event saying so) when the
   * context is near its limit, else undefined.
   */
  beforeModelCall?: (history: Message[], signal: AbortSignal) => Promise<HistoryReplacement | undefined>;
  /**
   * Called when the provider says the request is too long: a shorter history to retry with
   * (compaction), or undefined to fail the run.
   */
  onContextTooLong?: (history: Message[], signal: AbortSignal) => Promise<HistoryReplacement | undefined>;
  /** The user's hooks: PreToolUse and PostToolUse around each call, Stop (or SubagentStop) when the model is done. */
  hooks?: LoopHooks;
  now?: () => number;
  /** The sub-agent job this loop runs (its tools' `ToolContext.jobId`); undefined for the parent. */
  jobId?: string;
  /** Timers for the duration limit (tests pass a fake clock). */
  timers?: Timers;
  /**
   * Asked before every model call with the request about to be made (a sub-agent's budget): a
   * refusal ends the run with that error and the call is not made; an admission is released
   * once the call has ended, whichever way.
   */
  admitCall?: (request: ModelRequest) => CallAdmission;
}

/** What `admitCall` answers: the call may go (release when it has ended), or why it may not. */
export type CallAdmission = { release: () => void } | { refused: string };

/** A history that replaces the current one (compaction), and the event that tells of it. */
export interface HistoryReplacement {
  history: Message[];
  event: LoopEvent;
}

/** One model call's end: its message, or why the run stops. */
type ModelResponse = { kind: 'ok'; message: Message } | { kind: 'failed'; cause: StopCause };

/** What a run leaves behind (the conversation itself is in the caller's context). */
export interface LoopResult {
  /** The messages this run added. */
  newMessages: Message[];
  cause: StopCause;
  usage: Usage;
  turns: number;
}

/**
 * Runs model calls and tool calls until a response asks for no tool, a limit is reached,
 * or `signal` aborts, appending every message to `context.messages`. Yields every event.
 * Failures of tools become tool results; only provider failures and aborts end the run early.
 */
export async function* agentLoop(
  context: LoopContext,
  config: LoopConfig,
  signal: AbortSignal,
): AsyncGenerator<LoopEvent, LoopResult> {
  const now = config.now ?? Date.now;
  const limits = config.limits ?? {};
  const startedAt = now();
  const newMessages: Message[] = [];
  let usage = emptyUsage();
  let turns = 0;
  let toolCalls = 0;
  /** The model asked for more tool calls than `maxToolCalls` left: the run ends once they are answered. */
  let overToolLimit = false;
  let repeats = noRepeats;
  /** A hook said `continue: false`: the run ends once the current batch is done. */
  let hookStop: { event: 'PreToolUse' | 'PostToolUse'; reason: string } | undefined;
  let stopContinues = 0;

  // The run's own controller: the caller's signal and the duration limit both abort it.
  const run = new AbortController();
  let durationHit = false;
  const onAbort = () => run.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timers = config.timers ?? realTimers;
  const durationTimer =
    limits.maxDuration !== undefined
      ? timers.setTimeout(() => {
          durationHit = true;
          run.abort(new Error('duration limit'));
        }, limits.maxDuration)
      : undefined;

  const append = (message: Message) => {
    context.messages.push(message);
    newMessages.push(message);
    config.onMessage?.(message);
  };

  const abortCause = (): StopCause => (durationHit ? durationLimit(limits.maxDuration ?? 0) : { kind: 'aborted' });

  let cause: StopCause;
  try {
    cause = yield* steps();
  } finally {
    if (durationTimer !== undefined) timers.clearTimeout(durationTimer);
    signal.removeEventListener('abort', onAbort);
  }
  yield { type: 'run_end', cause };
  return { newMessages, cause, usage, turns };

  /** Model call, tools, boundary; again, until something ends the run. */
  async function* steps(): AsyncGenerator<LoopEvent, StopCause> {
    for (;;) {
      if (run.signal.aborted) return abortCause();
      // Limits first: a notice injected now would sit in the history unseen if the run then stopped.
      if (turns > 0) {
        const limit = reachedLimit(limits, { turns, usage, startedAt, now: now() });
        if (limit) return limit;
      }
      for (const injected of config.boundaryMessages?.() ?? []) {
        append(injected);
        yield { type: 'injected', message: injected };
      }
      const compacted = await config.beforeModelCall?.(context.messages, run.signal);
      if (compacted) {
        context.messages = [...compacted.history];
        yield compacted.event;
      }

      // Judged on the request as it would go, before the turn counts: a refused call is never made.
      const admission = config.admitCall?.(modelRequest());
      if (admission && 'refused' in admission) return { kind: 'error', message: admission.refused };
      turns += 1;
      yield { type: 'turn_start', turn: turns };
      let response: ModelResponse;
      try {
        response = yield* callModel();
      } finally {
        admission?.release();
      }
      if (response.kind === 'failed') return response.cause;
      const { message } = response;
      append(message);

      const calls = toolUses(message);
      if (calls.length === 0) {
        const followUps = reachedLimit(limits, { turns, usage, startedAt, now: now() })
          ? []
          : (config.followUpMessages?.() ?? []);
        if (followUps.length > 0) {
          yield { type: 'turn_end', turn: turns };
          for (const followUp of followUps) {
            append(followUp);
            yield { type: 'injected', message: followUp };
          }
          continue;
        }
        const after = yield* stopHooks();
        yield { type: 'turn_end', turn: turns };
        if (after.kind === 'continue') {
          append(after.message);
          yield { type: 'injected', message: after.message };
          continue;
        }
        return after.cause;
      }
      config.beforeToolBatch?.(calls);
      const results = yield* runTools(calls);
      append({ role: 'user', content: results });
      yield { type: 'turn_end', turn: turns };
      if (hookStop) return { kind: 'hook', event: hookStop.event, reason: hookStop.reason };
      if (overToolLimit) return toolCallLimit(limits.maxToolCalls ?? 0);
      const repeat = afterBatch(repeats, calls, results, limits.maxRepeatedFailures);
      repeats = repeat.state;
      if (repeat.stop) return repeat.stop;
    }
  }

  /**
   * The model is done: Stop hooks may send it back to work (their reason is its next user
   * message), at most MAX_STOP_HOOK_CONTINUES times in a row, or end the run.
   */
  async function* stopHooks(): AsyncGenerator<
    LoopEvent,
    { kind: 'continue'; message: Message } | { kind: 'end'; cause: StopCause }
  > {
    const completed = { kind: 'end' as const, cause: { kind: 'completed' as const } };
    if (!config.hooks?.onStop) return completed;
    const emitted: LoopEvent[] = [];
    const answer = await config.hooks.onStop({ stopHookActive: stopContinues > 0 }, run.signal, (event) => emitted.push(event));
    yield* emitted;
    if (run.signal.aborted) return { kind: 'end', cause: abortCause() };
    if (answer.stop !== undefined) return { kind: 'end', cause: { kind: 'hook', event: 'Stop', reason: answer.stop } };
    if (answer.continueWith === undefined) return completed;
    if (stopContinues >= MAX_STOP_HOOK_CONTINUES) {
      yield {
        type: 'notice',
        level: 'warn',
        text: `Stop hooks sent the agent back to work ${stopContinues} times in a row; it stops here`,
      };
      return completed;
    }
    stopContinues += 1;
    return { kind: 'continue', message: { role: 'user', content: [{ type: 'text', text: answer.continueWith }] } };
  }

  /** Streams one model response, retrying once through compaction when the context is too long. */
  async function* callModel(): AsyncGenerator<LoopEvent, ModelResponse> {
    let compacted = false;
    for (;;) {
      let partialText = '';
      try {
        for await (const event of config.stream(modelRequest(), run.signal)) {
          switch (event.type) {
            case 'text_delta':
              partialText += event.text;
              yield event;
              break;
            case 'thinking_delta':
              yield event;
              break;
            case 'retry':
              partialText = '';
              yield event;
              break;
            case 'rate_limit':
              yield event;
              break;
            case 'tool_call_start':
            case 'tool_call_delta':
            case 'tool_call_end':
              break;
            case 'message_end':
              usage = addUsage(usage, event.usage);
              yield { type: 'usage', usage: event.usage, total: usage };
              yield { type: 'message_end', message: event.message, stopReason: event.stopReason };
              return { kind: 'ok', message: event.message };
          }
        }
        return { kind: 'failed', cause: { kind: 'error', message: 'The model stream ended without a complete message.' } };
      } catch (error) {
        if (run.signal.aborted) {
          // Keep what the user already saw, so the history reflects it; drop half-made tool calls.
          if (partialText) append({ role: 'assistant', content: [{ type: 'text', text: partialText }] });
          return { kind: 'failed', cause: abortCause() };
        }
        if (error instanceof ProviderError && error.options.contextTooLong && !compacted && config.onContextTooLong) {
          compacted = true;
          const shorter = await config.onContextTooLong(context.messages, run.signal);
          if (shorter) {
            context.messages = [...shorter.history];
            yield shorter.event;
            continue;
          }
        }
        const message = error instanceof Error ? error.message : String(error);
        return { kind: 'failed', cause: { kind: 'error', message } };
      }
    }
  }

  /** The request the next model call makes of the history as it stands. */
  function modelRequest(): ModelRequest {
    return {
      model: config.model,
      system: context.system,
      messages: [...context.messages],
      tools: context.schemas ?? context.tools.schemas(),
      maxTokens: config.maxTokens,
    };
  }

  /**
   * Runs one response's tool calls: together when every one may run alongside the others,
   * else in order. Each call's `tool_start` is yielded before the call runs, so whatever the
   * call sets off (a sub-agent's first events) comes after it in the session's stream.
   */
  async function* runTools(calls: ToolUseBlock[]): AsyncGenerator<LoopEvent, ToolResultBlock[]> {
    // Past the tool-call limit a call is not run at all: it is answered so, and the run stops after this batch.
    const room = limits.maxToolCalls === undefined ? calls.length : Math.max(0, limits.maxToolCalls - toolCalls);
    if (room < calls.length) overToolLimit = true;
    const prepared = calls.slice(0, room).map((call) => prepareCall(call, context.tools));
    const concurrent = prepared.every((p) => p.ok && runsAlongside(p.tool));
    // By position, not id: a model may repeat an id, and each call still gets its own result.
    const results: (ToolResultBlock | undefined)[] = calls.map((call, index) =>
      index < room ? undefined : overLimitResult(call, limits.maxToolCalls ?? 0),
    );
    const batches = concurrent ? [prepared.map((p, index) => ({ p, index }))] : prepared.map((p, index) => [{ p, index }]);

    for (const batch of batches) {
      if (run.signal.aborted || hookStop) break;
      for (const { p } of batch) {
        toolCalls += 1;
        yield { type: 'tool_start', id: p.call.id, name: p.call.name, label: p.label, args: p.ok ? p.args : p.call.input };
      }
      const events = new AsyncQueue<LoopEvent>();
      const runOne = async ({ p, index }: { p: PreparedCall; index: number }) => {
        const result = await runPreparedCall(p, {
          tools: context.tools,
          workspace: context.workspace,
          gate: config.gate,
          limitOutput: config.limitOutput,
          signal: run.signal,
          onUpdate: (text) => events.push({ type: 'tool_update', id: p.call.id, name: p.call.name, text }),
          hooks: config.hooks,
          onEvent: (event) => events.push(event),
          onStopRequest: (event, reason) => {
            hookStop ??= { event, reason };
          },
          ...(config.jobId ? { jobId: config.jobId } : {}),
        });
        results[index] = result;
        events.push({
          type: 'tool_end',
          id: p.call.id,
          name: p.call.name,
          content: result.content,
          isError: result.isError ?? false,
        });
      };
      const done = Promise.all(batch.map(runOne)).finally(() => events.close());
      for await (const event of events) yield event;
      await done;
    }

    return calls.map(
      (call, index) =>
        results[index] ?? (hookStop && !run.signal.aborted ? notRunResult(call, hookStop.reason) : interruptedResult(call)),
    );
  }
}
