import type { LoopEvent } from '../loop/events.js';
import type { LoopHooks } from '../loop/loop-hooks.js';
import { claudeToolName, claudeToolResponse, hookToolInput, matchableNames } from './claude-tools.js';
import type { HookDispatcher, HookEvent } from './dispatcher.js';

// Each moment outrider runs hooks at, as the part of the code that owns that moment asks for
// it: the loop (tools, Stop), the session's submit (UserPromptSubmit), the child runner
// (SubagentStart, SubagentStop), the start (SessionStart) and the approver (Notification).

/** A sub-agent, as hook input names it (Claude Code's `agent_id`, `agent_type`). */
export interface HookAgent {
  id: string;
  type: string;
  transcriptPath?: string;
}

/** What a hook adds for the model, and whether it ends things. */
export interface PromptAnswer {
  /** The prompt is dropped: for the user, not the model. */
  block?: string;
  context?: string;
}

/** The loop's hooks for the parent (Stop) or for a sub-agent (SubagentStop, its calls tagged with its id). */
export function loopHooks(dispatcher: HookDispatcher, agent?: HookAgent): LoopHooks {
  const who = agent ? { agent_id: agent.id, agent_type: agent.type } : {};
  const root = dispatcher.root;
  return {
    async beforeTool(call, signal, emit) {
      if (!dispatcher.has('PreToolUse')) return {};
      const { decision, events } = await dispatcher.dispatch('PreToolUse', {
        subjects: matchableNames(call.name),
        input: { ...toolFields(call, root), ...who },
        signal,
        tool: { id: call.id, name: call.name },
      });
      publish(events, emit);
      if (decision.stop !== undefined) return { stop: decision.stop };
      if (decision.block !== undefined) return { block: decision.block };
      const permission = decision.permission;
      if (permission?.decision === 'deny') return { block: permission.reason };
      return permission ? { permission: { decision: permission.decision, reason: permission.reason } } : {};
    },
    async afterTool(call, result, signal, emit) {
      if (!dispatcher.has('PostToolUse')) return {};
      const filePath = (toolFields(call, root).tool_input as { file_path?: unknown } | undefined)?.file_path;
      const { decision, events } = await dispatcher.dispatch('PostToolUse', {
        subjects: matchableNames(call.name),
        input: {
          ...toolFields(call, root),
          tool_response: {
            content: result.content,
            is_error: result.isError,
            success: !result.isError,
            ...(typeof filePath === 'string' ? { filePath } : {}),
            ...claudeToolResponse(call.name, result),
          },
          ...who,
        },
        signal,
        tool: { id: call.id, name: call.name },
      });
      publish(events, emit);
      const parts = [
        decision.block !== undefined ? `PostToolUse hook feedback:\n${decision.block}` : undefined,
        decision.context !== undefined ? `PostToolUse hook context:\n${decision.context}` : undefined,
      ].filter((part): part is string => part !== undefined);
      return {
        ...(parts.length ? { feedback: parts.join('\n\n') } : {}),
        ...(decision.stop !== undefined ? { stop: decision.stop } : {}),
      };
    },
    async onStop(state, signal, emit) {
      const event = agent ? 'SubagentStop' : 'Stop';
      if (!dispatcher.has(event)) return {};
      const { decision, events } = await dispatcher.dispatch(event, {
        subjects: agent ? [agent.type] : [],
        input: {
          stop_hook_active: state.stopHookActive,
          ...who,
          ...(agent?.transcriptPath ? { agent_transcript_path: agent.transcriptPath } : {}),
        },
        signal,
      });
      publish(events, emit);
      if (decision.stop !== undefined) return { stop: decision.stop };
      return decision.block !== undefined ? { continueWith: `${event} hook feedback:\n${decision.block}` } : {};
    },
  };
}

/** UserPromptSubmit: before the prompt joins the history. */
export async function promptHooks(
  dispatcher: HookDispatcher,
  prompt: string,
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Promise<PromptAnswer> {
  if (!dispatcher.has('UserPromptSubmit')) return {};
  const { decision, events } = await dispatcher.dispatch('UserPromptSubmit', { input: { prompt }, signal });
  publish(events, emit);
  const block = decision.stop ?? decision.block;
  if (block !== undefined) return { block };
  return decision.context !== undefined ? { context: decision.context } : {};
}

/** SessionStart (`startup` or `resume`): context for the first turn, and the events of each hook. */
export async function sessionStartHooks(
  dispatcher: HookDispatcher,
  source: 'startup' | 'resume',
  signal: AbortSignal,
): Promise<{ context?: string; events: HookEvent[] }> {
  if (!dispatcher.has('SessionStart')) return { events: [] };
  const { decision, events } = await dispatcher.dispatch('SessionStart', { subjects: [source], input: { source }, signal });
  return { ...(decision.context !== undefined ? { context: decision.context } : {}), events };
}

/** SubagentStart: context to add to the sub-agent's task. */
export async function subagentStartHooks(
  dispatcher: HookDispatcher,
  agent: HookAgent,
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Promise<string | undefined> {
  if (!dispatcher.has('SubagentStart')) return undefined;
  const { decision, events } = await dispatcher.dispatch('SubagentStart', {
    subjects: [agent.type],
    input: { agent_id: agent.id, agent_type: agent.type },
    signal,
  });
  publish(events, emit);
  return decision.context;
}

/** Notification: the agent waits for the user (an approval). Nothing it says changes anything. */
export async function notificationHooks(
  dispatcher: HookDispatcher,
  notification: { message: string; type: string },
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Promise<void> {
  if (!dispatcher.has('Notification')) return;
  const { events } = await dispatcher.dispatch('Notification', {
    subjects: [notification.type],
    input: { message: notification.message, notification_type: notification.type },
    signal,
  });
  publish(events, emit);
}

/** PreCompact: before the history is summarized (`auto` near the window, `manual` for /compact). Nothing it says stops it. */
export async function preCompactHooks(
  dispatcher: HookDispatcher,
  trigger: 'auto' | 'manual',
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Promise<void> {
  if (!dispatcher.has('PreCompact')) return;
  const { events } = await dispatcher.dispatch('PreCompact', {
    subjects: [trigger],
    input: { trigger, custom_instructions: '' },
    signal,
  });
  publish(events, emit);
}

/** Why a session ends, as Claude Code's SessionEnd hooks are told it. */
export type SessionEndReason = 'clear' | 'logout' | 'prompt_input_exit' | 'other';

/** SessionEnd: the session closes (`other`, or `prompt_input_exit` when the user left the TUI). Its output changes nothing. */
export async function sessionEndHooks(
  dispatcher: HookDispatcher,
  reason: SessionEndReason,
  signal: AbortSignal,
  emit: (event: LoopEvent) => void,
): Promise<void> {
  if (!dispatcher.has('SessionEnd')) return;
  const { events } = await dispatcher.dispatch('SessionEnd', { subjects: [reason], input: { reason }, signal });
  publish(events, emit);
}

function toolFields(call: { id: string; name: string; args: unknown }, root: string): Record<string, unknown> {
  return {
    tool_name: claudeToolName(call.name),
    tool_input: hookToolInput(call.name, call.args, root),
    tool_use_id: call.id,
    // The tool's own name, for scripts written for outrider.
    outrider_tool_name: call.name,
  };
}

function publish(events: LoopEvent[], emit: (event: LoopEvent) => void): void {
  for (const event of events) emit(event);
}
