import { INVALID_JSON_KEY, INVALID_TOOL_NAME, type ToolResultBlock, type ToolUseBlock } from '../providers/types.js';
import type { AnyTool, ToolOutput, Workspace } from '../tools/define.js';
import type { ToolGate } from '../permissions/types.js';

export type { ToolGate };
import { type OutputLimiter, type ToolRegistry, executeTool } from '../tools/registry.js';
import type { LoopEvent } from './events.js';
import type { LoopHooks } from './loop-hooks.js';

export interface ToolRunEnv {
  tools: ToolRegistry;
  workspace: Workspace;
  gate?: ToolGate;
  limitOutput?: OutputLimiter;
  signal: AbortSignal;
  onUpdate: (text: string) => void;
  /** The user's PreToolUse and PostToolUse hooks. */
  hooks?: Pick<LoopHooks, 'beforeTool' | 'afterTool'>;
  /** Where hook events go (the loop yields them in order with the call's own). */
  onEvent?: (event: LoopEvent) => void;
  /** A hook said `continue: false`: the run ends after this batch. */
  onStopRequest?: (event: 'PreToolUse' | 'PostToolUse', reason: string) => void;
  /** The job running this loop, passed to tools as `ToolContext.jobId`. */
  jobId?: string;
}

/** A tool call checked and ready to run, or the error the model gets instead. */
export type PreparedCall =
  | { ok: true; call: ToolUseBlock; tool: AnyTool; args: unknown; label: string }
  | { ok: false; call: ToolUseBlock; label: string; error: string };

/** Resolves the tool and validates its arguments, without running anything. */
export function prepareCall(call: ToolUseBlock, tools: ToolRegistry): PreparedCall {
  const tool = tools.get(call.name);
  if (!tool && call.name === INVALID_TOOL_NAME) {
    // The provider boundary gives this name to a call that had none (or one no API accepts).
    const available = tools.names().join(', ') || '(none)';
    return {
      ok: false,
      call,
      label: '',
      error: `This tool call had no valid tool name. Call a tool by its exact name: ${available}.`,
    };
  }
  if (!tool) {
    return {
      ok: false,
      call,
      label: '',
      error: `Tool "${call.name}" is not available. Available tools: ${tools.names().join(', ') || '(none)'}.`,
    };
  }
  const input = call.input as Record<string, unknown> | undefined;
  if (input && typeof input === 'object' && INVALID_JSON_KEY in input) {
    return {
      ok: false,
      call,
      label: '',
      error: `The arguments of ${call.name} were not valid JSON: ${String(input[INVALID_JSON_KEY]).slice(0, 200)}. Send one JSON object.`,
    };
  }
  const parsed = tools.parseArgs(tool, call.input);
  if (!parsed.ok) return { ok: false, call, label: '', error: parsed.error };
  return { ok: true, call, tool, args: parsed.args, label: labelOf(tool, parsed.args) };
}

/** Runs one prepared call through the gate and the tool; never throws. */
export async function runPreparedCall(prepared: PreparedCall, env: ToolRunEnv): Promise<ToolResultBlock> {
  const result = (output: ToolOutput): ToolResultBlock => ({
    type: 'tool_result',
    toolUseId: prepared.call.id,
    content: output.content,
    ...(output.isError ? { isError: true } : {}),
    ...(output.images?.length && !output.isError ? { images: output.images } : {}),
  });
  if (!prepared.ok) return result({ content: prepared.error, isError: true });
  const emit = env.onEvent ?? (() => {});
  const hooked = { id: prepared.call.id, name: prepared.tool.name, args: prepared.args };
  // PreToolUse runs before the gate decides: its deny refuses the call, its allow or ask is the gate's to weigh.
  const before = env.hooks?.beforeTool ? await env.hooks.beforeTool(hooked, env.signal, emit) : {};
  if (before.stop !== undefined) {
    env.onStopRequest?.('PreToolUse', before.stop);
    return result({ content: `Not run: a hook stopped the agent (${before.stop}).`, isError: true });
  }
  if (before.block !== undefined) return result({ content: `Blocked by a PreToolUse hook: ${before.block}`, isError: true });
  let sandbox: 'read-only' | undefined;
  let args = prepared.args;
  if (env.gate) {
    const call = { tool: prepared.tool, args: prepared.args, label: prepared.label, id: prepared.call.id };
    const verdict = await env.gate(before.permission ? { ...call, hook: before.permission } : call, env.signal);
    if (!verdict.allowed) return result({ content: verdict.message, isError: true });
    sandbox = verdict.sandbox;
    if (verdict.args !== undefined) {
      // A permission prompt (the SDK's canUseTool) may change the input: it is checked like the model's.
      const parsed = env.tools.parseArgs(prepared.tool, verdict.args);
      if (!parsed.ok)
        return result({
          content: `The permission prompt changed the input into one that is not valid: ${parsed.error}`,
          isError: true,
        });
      args = parsed.args;
    }
  }
  const output = await executeTool(prepared.tool, args, {
    signal: env.signal,
    workspace: env.workspace,
    onUpdate: env.onUpdate,
    callId: prepared.call.id,
    ...(sandbox ? { sandbox } : {}),
    ...(env.jobId ? { jobId: env.jobId } : {}),
  });
  const limited = env.limitOutput ? env.limitOutput(output, prepared.tool.name) : output;
  if (!env.hooks?.afterTool || env.signal.aborted) return result(limited);
  // PostToolUse sees what the model will read (scrubbed, limited); what it says is added to it.
  const after = await env.hooks.afterTool(
    hooked,
    { content: limited.content, isError: limited.isError ?? false },
    env.signal,
    emit,
  );
  if (after.stop !== undefined) env.onStopRequest?.('PostToolUse', after.stop);
  return result(after.feedback ? { ...limited, content: `${limited.content}\n\n${after.feedback}` } : limited);
}

/** The result a call gets when a hook ended the run before the call's turn came. */
export function notRunResult(call: ToolUseBlock, reason: string): ToolResultBlock {
  return { type: 'tool_result', toolUseId: call.id, content: `Not run: a hook stopped the agent (${reason}).`, isError: true };
}

/** The result a call past the run's tool-call limit gets: it was not run. */
export function overLimitResult(call: ToolUseBlock, limit: number): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: call.id,
    content: `Not run: the limit of ${limit} tool calls was reached.`,
    isError: true,
  };
}

/** The result a call gets when the run stopped before it finished. */
export function interruptedResult(call: ToolUseBlock): ToolResultBlock {
  return {
    type: 'tool_result',
    toolUseId: call.id,
    content: 'Interrupted: the user stopped this turn before the tool finished.',
    isError: true,
  };
}

/** A one-line label for a call: the tool's own, else its first string argument. */
function labelOf(tool: AnyTool, args: unknown): string {
  const raw = tool.label?.(args) ?? firstString(args) ?? '';
  const line = raw.split('\n', 1)[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

function firstString(args: unknown): string | undefined {
  if (!args || typeof args !== 'object') return undefined;
  return Object.values(args).find((v): v is string => typeof v === 'string');
}
