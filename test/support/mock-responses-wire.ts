/**
 * The OpenAI Responses API's wire for the mock provider (`POST /v1/responses`): the SSE events
 * and the JSON body the real API sends, shaped so the real SDK parses them, and the checks the
 * real API makes of a stateless request's input items (store: false).
 */
import { type MockUsage, type ResolvedReply, type SseChunk, splitArgs, splitChunks } from './mock-wire.js';

const TEXT_CHUNK = 12;

function event(data: { type: string } & Record<string, unknown>, sequence: number): SseChunk {
  return `event: ${data.type}\ndata: ${JSON.stringify({ ...data, sequence_number: sequence })}\n\n`;
}

function usageOf(usage: MockUsage): unknown {
  const input = usage.input + usage.cacheRead;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: usage.reasoning ?? 0 },
    total_tokens: input + usage.output,
  };
}

/** The output items of a reply, whole, in order: reasoning, message, function calls. */
function outputItems(reply: ResolvedReply): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  if (reply.thinking) {
    items.push({
      id: `rs_${reply.id}`,
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: reply.thinking }],
      // Only when asked for (include: ["reasoning.encrypted_content"]), as the real API.
      ...(reply.encryptedReasoning ? { encrypted_content: reply.signature } : {}),
    });
  }
  if (reply.text) {
    items.push({
      id: `msg_${reply.id}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [] }],
    });
  }
  reply.toolCalls.forEach((call, i) => {
    items.push({
      id: `fc_${reply.id}_${i}`,
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: call.args,
    });
  });
  return items;
}

/** The response object of `response.created` (empty) and `response.completed` (whole). */
function responseObject(reply: ResolvedReply, whole: boolean): Record<string, unknown> {
  const incomplete = reply.stopReason === 'max_tokens' || reply.stopReason === 'max_output_tokens';
  return {
    id: reply.id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: whole ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    model: reply.model,
    output: whole ? outputItems(reply) : [],
    incomplete_details: whole && incomplete ? { reason: 'max_output_tokens' } : null,
    usage: whole ? usageOf(reply.usage) : null,
  };
}

/** The Responses stream: created, each item added / its deltas / done, then completed (or incomplete). */
export function responsesStream(reply: ResolvedReply): SseChunk[] {
  let sequence = 0;
  const chunks: SseChunk[] = [];
  const push = (data: { type: string } & Record<string, unknown>) => chunks.push(event(data, sequence++));
  push({ type: 'response.created', response: responseObject(reply, false) });
  push({ type: 'response.in_progress', response: responseObject(reply, false) });
  outputItems(reply).forEach((item, output_index) => {
    const id = item.id as string;
    if (item.type === 'reasoning') {
      push({ type: 'response.output_item.added', output_index, item: { id, type: 'reasoning', summary: [] } });
      push({
        type: 'response.reasoning_summary_part.added',
        item_id: id,
        output_index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      });
      for (const delta of splitChunks(reply.thinking, TEXT_CHUNK)) {
        push({ type: 'response.reasoning_summary_text.delta', item_id: id, output_index, summary_index: 0, delta });
      }
      push({ type: 'response.reasoning_summary_text.done', item_id: id, output_index, summary_index: 0, text: reply.thinking });
    } else if (item.type === 'message') {
      push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } });
      push({
        type: 'response.content_part.added',
        item_id: id,
        output_index,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [] },
      });
      for (const delta of splitChunks(reply.text, TEXT_CHUNK)) {
        push({ type: 'response.output_text.delta', item_id: id, output_index, content_index: 0, delta, logprobs: [] });
      }
      push({ type: 'response.output_text.done', item_id: id, output_index, content_index: 0, text: reply.text, logprobs: [] });
    } else {
      push({ type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of splitArgs(item.arguments as string)) {
        push({ type: 'response.function_call_arguments.delta', item_id: id, output_index, delta });
      }
      push({
        type: 'response.function_call_arguments.done',
        item_id: id,
        output_index,
        name: item.name,
        arguments: item.arguments,
      });
    }
    push({ type: 'response.output_item.done', output_index, item });
  });
  for (const raw of reply.rawEvents) push(raw as { type: string });
  const whole = responseObject(reply, true);
  push({ type: whole.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response: whole });
  return chunks;
}

/** The non-streaming Responses body. */
export function responsesBody(reply: ResolvedReply): unknown {
  return responseObject(reply, true);
}

/** An `error` event in the stream, as the API sends one mid-response. */
export function responsesErrorEvent(code: string, message: string): SseChunk {
  return `event: error\ndata: ${JSON.stringify({ type: 'error', code, message, param: null, sequence_number: 0 })}\n\n`;
}

type Item = Record<string, unknown>;

/**
 * Why the real API would refuse a stateless request's input, in its words, or undefined: every
 * function call answered by a function_call_output (and every output answering a call before it),
 * every reasoning item followed by what it led to and, with `store: false`, carrying its
 * encrypted content (the server kept nothing to find it by).
 */
export function responsesTurnError(body: unknown): string | undefined {
  const { input, store } = (body ?? {}) as { input?: unknown; store?: unknown };
  if (!Array.isArray(input) || input.length === 0) return 'input: at least one item is required';
  const open = new Set<string>();
  const items = input as Item[];
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    if (item.type === 'function_call') {
      open.add(String(item.call_id));
    } else if (item.type === 'function_call_output') {
      if (!open.delete(String(item.call_id)))
        return `No tool call found for function call output with call_id ${String(item.call_id)}.`;
    } else if (item.type === 'reasoning') {
      const next = items[i + 1];
      if (!next || next.type === 'function_call_output' || next.role === 'user') {
        return `Item '${String(item.id)}' of type 'reasoning' was provided without its required following item.`;
      }
      if (store === false && typeof item.encrypted_content !== 'string') {
        return `Item with id '${String(item.id)}' not found. Items are not persisted when \`store\` is set to false.`;
      }
    } else if (item.role === 'user' && open.size > 0) {
      return `No tool output found for function call ${[...open].join(', ')}.`;
    }
  }
  return open.size > 0 ? `No tool output found for function call ${[...open].join(', ')}.` : undefined;
}
