/**
 * A session's events as ACP `session/update`s: text and thinking as chunks, each tool call
 * from its start to its end, the plan from todo_write. One mapper per ACP session (the
 * parent's, and each sub-agent's child session), since a call's arguments are kept from its
 * start until its end.
 */
import type { SessionUpdate, ToolCallContent, ToolCallStatus } from '@agentclientprotocol/sdk/unstable';
import type { LoopEvent, Message, Todo } from '../../core/index.js';
import { isSummaryMessage } from '../../core/index.js';
import { editDiff, textContent, toolKind, toolLocations, toolTitle } from './tool-calls.js';

/** Live output kept per running call (the editor shows the tail of a long command). */
const LIVE_OUTPUT_MAX = 8 * 1024;

interface OpenCall {
  name: string;
  diff: ToolCallContent[];
  output: string;
  /** The editor's terminal the call runs in: shown until the end, and after. */
  terminal?: ToolCallContent;
}

export class SessionUpdates {
  private readonly calls = new Map<string, OpenCall>();
  /** Terminals shown before their call's start reached this mapper. */
  private readonly early = new Map<string, ToolCallContent>();

  constructor(private readonly cwd: string) {}

  /** The updates one event of the loop makes (none for most bookkeeping events). */
  fromLoop(event: LoopEvent): SessionUpdate[] {
    switch (event.type) {
      case 'text_delta':
        return event.text ? [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: event.text } }] : [];
      case 'thinking_delta':
        return event.text ? [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: event.text } }] : [];
      case 'tool_start': {
        const diff = editDiff(event.name, event.args, this.cwd);
        const terminal = this.early.get(event.id);
        this.early.delete(event.id);
        this.calls.set(event.id, { name: event.name, diff, output: '', ...(terminal ? { terminal } : {}) });
        const content = [...diff, ...(terminal ? [terminal] : [])];
        return [
          {
            sessionUpdate: 'tool_call',
            toolCallId: event.id,
            title: toolTitle(event.name, event.label, event.args),
            kind: toolKind(event.name),
            status: 'pending',
            locations: toolLocations(event.name, event.args, this.cwd),
            rawInput: event.args,
            ...(content.length ? { content } : {}),
          },
        ];
      }
      case 'tool_update': {
        const call = this.calls.get(event.id);
        if (!call) return [];
        call.output = `${call.output}${event.text}\n`.slice(-LIVE_OUTPUT_MAX);
        return [
          {
            sessionUpdate: 'tool_call_update',
            toolCallId: event.id,
            status: 'in_progress',
            content: [...call.diff, ...(call.terminal ? [call.terminal] : []), textContent(call.output)],
          },
        ];
      }
      case 'tool_end': {
        const call = this.calls.get(event.id);
        this.calls.delete(event.id);
        return [endOfCall(event.id, event.isError, event.content, call?.diff ?? [], call?.terminal)];
      }
      default:
        return [];
    }
  }

  /** The update that embeds the editor's terminal in a running call (its start carries it when not sent yet). */
  terminal(id: string, terminalId: string): SessionUpdate[] {
    const call = this.calls.get(id);
    if (!call) {
      this.early.set(id, { type: 'terminal', terminalId });
      return [];
    }
    call.terminal = { type: 'terminal', terminalId };
    return [{ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'in_progress', content: [...call.diff, call.terminal] }];
  }

  /** The model's plan, whole, as todo_write set it. */
  static plan(todos: readonly Todo[]): SessionUpdate {
    return {
      sessionUpdate: 'plan',
      entries: todos.map((todo) => ({ content: todo.content, status: todo.status, priority: 'medium' })),
    };
  }

  /** Calls that started and will never end (the turn was stopped): closed as failed. */
  abandon(): SessionUpdate[] {
    const open = [...this.calls.keys()];
    this.calls.clear();
    this.early.clear();
    return open.map((id) => ({ sessionUpdate: 'tool_call_update', toolCallId: id, status: 'failed' as ToolCallStatus }));
  }

  /**
   * A stored history as the updates that would have shown it: the user's prompts and images,
   * the model's text, thinking and tool calls with their results, and the plan as todo_write
   * last set it. Completion notices and compaction summaries are the session's own
   * bookkeeping and are left out.
   */
  static replay(messages: readonly Message[], cwd: string): SessionUpdate[] {
    const results = new Map<string, { content: string; isError: boolean }>();
    for (const message of messages) {
      for (const block of message.content) {
        if (block.type === 'tool_result')
          results.set(block.toolUseId, { content: block.content, isError: block.isError === true });
      }
    }
    const updates: SessionUpdate[] = [];
    for (const message of messages) {
      if (message.noticeFor || isSummaryMessage(message)) continue;
      for (const block of message.content) {
        if (block.type === 'text' && block.text) {
          updates.push({
            sessionUpdate: message.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk',
            content: { type: 'text', text: block.text },
          });
        } else if (block.type === 'image') {
          updates.push({
            sessionUpdate: 'user_message_chunk',
            content: { type: 'image', data: block.data, mimeType: block.mediaType },
          });
        } else if (block.type === 'thinking' && block.thinking) {
          updates.push({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: block.thinking } });
        } else if (block.type === 'tool_use') {
          const result = results.get(block.id);
          updates.push({
            sessionUpdate: 'tool_call',
            toolCallId: block.id,
            title: toolTitle(block.name, '', block.input),
            kind: toolKind(block.name),
            status: result === undefined ? 'failed' : result.isError ? 'failed' : 'completed',
            locations: toolLocations(block.name, block.input, cwd),
            rawInput: block.input,
            ...(result ? { content: [textContent(result.content)] } : {}),
          });
          const todos = block.name === 'todo_write' && !result?.isError ? todosOf(block.input) : undefined;
          if (todos) updates.push(SessionUpdates.plan(todos));
        }
      }
    }
    return updates;
  }
}

function endOfCall(
  id: string,
  isError: boolean,
  content: string,
  diff: ToolCallContent[],
  terminal?: ToolCallContent,
): SessionUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: id,
    status: isError ? 'failed' : 'completed',
    // A failed edit changed nothing: its diff would say otherwise.
    content: [...(isError ? [] : diff), ...(terminal ? [terminal] : []), ...(content ? [textContent(content)] : [])],
  };
}

function todosOf(input: unknown): Todo[] | undefined {
  const todos = (input as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return undefined;
  return todos.filter(
    (todo): todo is Todo =>
      typeof todo === 'object' &&
      todo !== null &&
      typeof (todo as Todo).content === 'string' &&
      ['pending', 'in_progress', 'completed'].includes((todo as Todo).status),
  );
}
