import type { HookAgent } from '../hooks/hook-points.js';
import type { LoopContext, LoopResult } from '../loop/agent-loop.js';
import { Conversation } from '../loop/conversation.js';
import type { LoopEvent } from '../loop/events.js';
import type { LoopHooks } from '../loop/loop-hooks.js';
import { type Limits, totalTokens } from '../loop/limits.js';
import type { Timers } from '../platform/timers.js';
import type { ToolGate } from '../loop/tool-runner.js';
import { withEffort } from '../providers/effort.js';
import { type Message, type StreamFn, messageText } from '../providers/types.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import { type OutputLimiter, ToolRegistry } from '../tools/registry.js';
import { toolNameMatcher } from '../tools/tool-patterns.js';
import { DEFAULT_READ_ONLY_TOOLS, type AgentDefinition, childModel } from './definitions.js';
import type { ChildOutcome, ChildRunRequest, ChildRunner } from '../jobs/job-manager.js';
import { narrowestCaps } from '../jobs/job-caps.js';
import { NO_TEXT_OUTPUT } from '../jobs/job-texts.js';
import { hookStopText } from '../hooks/stop-text.js';
import { budgetStop, type RunLimits, withToolsNamed } from './child-outcome.js';
import { CHILD_CAPS, definitionCaps } from './definition-caps.js';

/** Default limits of one child run, per the spec. */
export const CHILD_LIMITS: Required<Omit<Limits, 'maxRepeatedFailures' | 'maxToolCalls'>> = {
  maxTurns: CHILD_CAPS.maxTurns,
  maxTotalTokens: CHILD_CAPS.maxTokens,
  maxDuration: CHILD_CAPS.maxDurationMs,
};
export const NUDGE = 'Reply with your final answer as text.';
const MAX_NUDGES = 2;

const ROLE_CONTRACT = `You are a sub-agent started by another agent to do one focused task. You cannot ask the user anything and nobody reads your intermediate messages. Work efficiently with your tools, then finish with one concise final answer: it is your entire return value, so include the facts, paths and line numbers the parent needs.`;

/** The user's hooks for one job: its tool calls and SubagentStop through the loop, SubagentStart before it. */
export interface ChildHooks {
  loopFor(agent: HookAgent): LoopHooks;
  /** SubagentStart: context a hook adds to the job's task. */
  onStart?(agent: HookAgent, signal: AbortSignal, emit: (event: LoopEvent) => void): Promise<string | undefined>;
}

/** Where a child's messages go as they happen (its transcript). */
export interface ChildTranscript {
  append(message: Message): void;
}

export interface ChildRunDeps {
  definitions: () => Map<string, AgentDefinition>;
  /** The parent's registry: children get a filtered view of it. */
  parentTools: ToolRegistry;
  stream: StreamFn;
  model: string;
  /** The answer's cap asked for (settings' `maxTokens`); bounded by each job's model's own output cap. */
  maxTokens: number;
  /** A model's output cap (the catalogue and the settings' `models`); without it, `maxTokens` as given. */
  maxOutputOf?: (model: string) => number;
  workspace: Workspace;
  limits?: Partial<Limits>;
  /** A permission gate labelled with the job id (approvals name the job), within the definition's `permissions`. */
  gateFor?: (jobId: string, definition: AgentDefinition, workspace: Workspace) => ToolGate;
  limitOutput?: OutputLimiter;
  transcriptFor?: (request: ChildRunRequest, definition: AgentDefinition) => ChildTranscript | undefined;
  /** The clock the duration limit is measured with, and its timers (tests pass a fake). */
  now?: () => number;
  timers?: Timers;
  /** Environment facts and project instructions, appended to a typed child's system prompt. */
  sharedContext?: string;
  hooks?: ChildHooks;
  /** Nesting: the agent_* tools, given to a child whose depth is below `maxDepth` (default 1: none). */
  nesting?: { agentTools: AnyTool[]; maxDepth: number };
  // Isolation: the session's record of which job wrote which file.
  trackWrites?: (jobId: string, tools: ToolRegistry) => ToolRegistry;
}

/** The child runner the job manager calls: the same agentLoop, in a fresh or forked context. */
export function createChildRunner(deps: ChildRunDeps): ChildRunner {
  return async (request) => {
    const definition = deps.definitions().get(request.definition);
    if (!definition) throw new Error(`unknown agent "${request.definition}"`);
    const tools = withNesting(childTools(deps.parentTools, definition), definition, request.depth ?? 1, deps.nesting);
    const transcript = deps.transcriptFor?.(request, definition);
    // A definition's own limit replaces the session's (one from the repository may only lower it);
    // the caps the manager settled (agent_start's, an owner's time left) may lower them again.
    const session = deps.limits ?? {};
    const caps = narrowestCaps(
      definitionCaps(definition, {
        maxTurns: session.maxTurns,
        maxTokens: session.maxTotalTokens,
        maxDurationMs: session.maxDuration,
        maxToolCalls: session.maxToolCalls,
      }),
      request.budget,
    );
    const limits: RunLimits = {
      maxTurns: caps.maxTurns ?? CHILD_LIMITS.maxTurns,
      maxTotalTokens: caps.maxTokens ?? CHILD_LIMITS.maxTotalTokens,
      maxDuration: caps.maxDurationMs ?? CHILD_LIMITS.maxDuration,
      ...(caps.maxToolCalls !== undefined ? { maxToolCalls: caps.maxToolCalls } : {}),
    };

    const now = deps.now ?? Date.now;
    const workspace = request.workspace ?? deps.workspace;
    const tracked = deps.trackWrites ? deps.trackWrites(request.id, tools) : tools;
    const context = childContext(request, definition, { tools: tracked, workspace }, deps.sharedContext);
    const agent: HookAgent = { id: request.id, type: definition.name };
    if (deps.hooks?.onStart && !request.resume) {
      const extra = await deps.hooks.onStart(agent, request.signal, request.onEvent);
      if (extra !== undefined) addText(context.messages, `Context from a SubagentStart hook:\n${extra}`);
    }
    const hooks = deps.hooks?.loopFor(agent);
    // The transcript already holds what came before: a fork's parent prefix, a resumed job's history.
    const fresh = request.resume ? context.messages.slice(-1) : context.messages.slice(request.mode === 'fork' ? -1 : 0);
    for (const message of fresh) transcript?.append(message);

    // The same conversation as the parent's; a child adds its limits and the nudges.
    const model = request.model ?? childModel(definition, deps.model);
    const conversation = new Conversation(context, {
      // Its definition's effort (or the session's), set when the job was made.
      stream: withEffort(deps.stream, request.effort),
      model,
      maxTokens: Math.min(deps.maxTokens, deps.maxOutputOf?.(model) ?? deps.maxTokens),
      gate: deps.gateFor?.(request.id, definition, workspace),
      limitOutput: deps.limitOutput,
      jobId: request.id,
      now,
    });
    conversation.onAppend((message) => {
      transcript?.append(message);
      request.onMessage?.(message);
    });
    const startedAt = now();
    let result: LoopResult | undefined;
    let toolCalls = 0;
    const made: Message[] = [];
    const onEvent = (event: LoopEvent) => {
      if (event.type === 'tool_start') toolCalls += 1;
      request.onEvent(event);
    };
    for (let attempt = 0; attempt <= MAX_NUDGES; attempt += 1) {
      result = await conversation.run(
        request.signal,
        {
          // Nudges continue the same run: what earlier attempts used counts against the limits.
          limits: {
            maxTurns: limits.maxTurns - conversation.turns(),
            maxTotalTokens: limits.maxTotalTokens - totalTokens(conversation.usage()),
            maxDuration: limits.maxDuration - (now() - startedAt),
            ...(limits.maxToolCalls !== undefined ? { maxToolCalls: limits.maxToolCalls - toolCalls } : {}),
          },
          // Messages sent to the job while it runs join its history between steps, never mid-call.
          boundaryMessages: request.takeInbox,
          // And one sent as it gives its answer: the run goes on to read it.
          followUpMessages: request.takeMessages,
          // Its tokens and dollars, against its caps, its owners' and the session's, before each call.
          ...(request.admitCall ? { admitCall: request.admitCall } : {}),
          ...(hooks ? { hooks } : {}),
          ...(deps.timers ? { timers: deps.timers } : {}),
        },
        onEvent,
      );
      made.push(...result.newMessages);
      if (result.cause.kind !== 'completed' || lastAssistantHasText(context.messages) || attempt === MAX_NUDGES) break;
      if (conversation.turns() >= limits.maxTurns) break;
      conversation.append({ role: 'user', content: [{ type: 'text', text: NUDGE }] });
    }
    const ran = { limits, tokens: totalTokens(conversation.usage()), toolCalls };
    const outcome = outcomeOf(result!, context.messages, budgetStop(result!.cause, ran, request.signal));
    // Stopped at a cap: what it had is named, so the owner knows what it need not redo.
    const text =
      outcome.status === 'error' && outcome.error?.startsWith('budget:') ? withToolsNamed(outcome.text, made) : outcome.text;
    return { ...outcome, text, messages: context.messages };
  };
}

/** Adds a text block to the last message (the task), keeping the history's shape. */
function addText(messages: Message[], text: string): void {
  const last = messages.at(-1);
  if (last?.role === 'user') messages[messages.length - 1] = { ...last, content: [...last.content, { type: 'text', text }] };
}

/** A typed child starts fresh with its definition's prompt; a fork replays the parent's exact prefix. */
function childContext(
  request: ChildRunRequest,
  definition: AgentDefinition,
  parts: { tools: ToolRegistry; workspace: Workspace },
  shared: string | undefined,
): LoopContext {
  const task = taskMessage(request);
  if (request.resume) {
    // The same system prompt and tools as its first run, so a fork keeps its cache prefix too.
    const system = request.mode === 'fork' && request.fork ? request.fork.system : typedSystem(definition, shared);
    return {
      ...parts,
      system,
      schemas: request.mode === 'fork' ? request.fork?.schemas : undefined,
      messages: [...request.resume],
    };
  }
  if (request.mode === 'fork') {
    const snapshot = request.fork;
    if (!snapshot) throw new Error('fork mode needs the parent conversation, which is not available here');
    return {
      ...parts,
      system: snapshot.system,
      schemas: snapshot.schemas,
      messages: [...snapshot.messages, forkTaskMessage(snapshot.messages, task)],
    };
  }
  return {
    ...parts,
    system: typedSystem(definition, shared),
    messages: [{ role: 'user', content: [{ type: 'text', text: task }] }],
  };
}

function typedSystem(definition: AgentDefinition, shared: string | undefined): string {
  const base = `${definition.systemPrompt.trim()}\n\n${ROLE_CONTRACT}`;
  return shared ? `${base}\n\n${shared}` : base;
}

/**
 * allowlist ∩ registry − disallowed − agent_*; read_result always comes along. Entries may be
 * patterns (`mcp__github__*`). Without a list, the default read-only set and the MCP tools that
 * are read-only (only those whose readOnlyHint the user believes: `permissions.mcpReadOnlyHints`).
 * A definition in plan mode (`permissionMode: plan`) keeps only the read-only tools, whatever it lists.
 */
export function childTools(parent: ToolRegistry, definition: AgentDefinition): ToolRegistry {
  const listed = toolNameMatcher([...(definition.tools ?? DEFAULT_READ_ONLY_TOOLS), 'read_result']);
  const allowed = (tool: { name: string; kind: string }) =>
    listed(tool.name) || (definition.tools === undefined && tool.name.startsWith('mcp__') && tool.kind === 'read-only');
  const disallowed = toolNameMatcher(definition.disallowedTools);
  const readOnlyOnly = definition.permissions?.mode === 'plan';
  return parent.filter(
    (tool) =>
      allowed(tool) && !disallowed(tool.name) && !tool.name.startsWith('agent_') && (!readOnlyOnly || tool.kind === 'read-only'),
  );
}

/** A child that may start children of its own gets the agent tools, unless its definition disallows them. */
function withNesting(
  tools: ToolRegistry,
  definition: AgentDefinition,
  depth: number,
  nesting: ChildRunDeps['nesting'],
): ToolRegistry {
  if (!nesting || depth >= nesting.maxDepth || definition.permissions?.mode === 'plan') return tools;
  const disallowed = toolNameMatcher(definition.disallowedTools);
  const extra = nesting.agentTools.filter((tool) => !disallowed(tool.name) && !tools.get(tool.name));
  return new ToolRegistry([...tools.all(), ...extra]);
}

/** The child's one user message. */
export function taskMessage(request: { task: string; instructions?: string }): string {
  const extra = request.instructions?.trim();
  return extra ? `Extra instructions:\n${extra}\n\nTask:\n${request.task}` : `Task:\n${request.task}`;
}

/**
 * The message a fork appends to the parent's prefix. The parent's last message holds the
 * agent_start call (and maybe others) still unanswered: each gets a placeholder result so
 * the history is valid, then the fork's task follows.
 */
function forkTaskMessage(parentMessages: Message[], task: string): Message {
  const last = parentMessages.at(-1);
  const pending = last?.role === 'assistant' ? last.content.filter((b) => b.type === 'tool_use') : [];
  return {
    role: 'user',
    content: [
      ...pending.map((call) => ({
        type: 'tool_result' as const,
        toolUseId: (call as { id: string }).id,
        content: 'Running in the parent; not part of this fork.',
      })),
      { type: 'text', text: `${FORK_OPENING}\n${ROLE_CONTRACT}\n\n${task}` },
    ],
  };
}

/** How a fork's task message begins: where its own conversation starts after the parent's. */
const FORK_OPENING = 'You are now a forked sub-agent of this conversation.';

/** Where a fork's own conversation starts in its history (its task message, after the parent's prefix); 0 when none is found. */
export function forkStart(history: readonly Message[]): number {
  const at = history.findIndex(
    (message) => message.role === 'user' && message.content.some((b) => b.type === 'text' && b.text.startsWith(FORK_OPENING)),
  );
  return Math.max(0, at);
}

/** The final-text rule: the last assistant message that has text, else the placeholder. */
export function finalText(history: Message[]): string {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i]!;
    if (message.role !== 'assistant') continue;
    const texts = message.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
    if (texts.some((t) => t.trim())) return texts.join('\n');
  }
  return NO_TEXT_OUTPUT;
}

function outcomeOf(result: LoopResult, history: Message[], budget: string | undefined): ChildOutcome {
  const text = finalText(history);
  switch (result.cause.kind) {
    case 'completed':
      return { status: 'done', text };
    case 'limit':
      return { status: 'error', text, error: budget ?? result.cause.detail };
    case 'error':
      return { status: 'error', text, error: result.cause.message };
    case 'aborted':
      return { status: 'error', text, error: budget ?? 'stopped' };
    case 'hook':
      return { status: 'error', text, error: hookStopText(result.cause) };
  }
}

function lastAssistantHasText(history: Message[]): boolean {
  const last = [...history].reverse().find((m) => m.role === 'assistant');
  return last !== undefined && messageText(last).trim() !== '';
}
