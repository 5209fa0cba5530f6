/**
 * OpenAI's Responses API, the request side: normalized messages → input items, and the request
 * body. Stateless (`store: false`): the whole history goes with every request, reasoning items
 * included with their encrypted content, so no `previous_response_id` is needed and the server
 * keeps nothing. The body is joined from each message's JSON like the other backends' (request-
 * body.ts), byte for byte JSON.stringify of toResponsesParams, so its prefix is stable.
 */
import type OpenAI from 'openai';
import { dataUrl, orderedParts } from './content-parts.js';
import { openaiEffort, openaiReasons } from './effort.js';
import { type BodyCaches, headJson, messageJson, withMessages } from './request-body.js';
import type { ContentBlock, Message, ModelRequest } from './types.js';

type InputItem = OpenAI.Responses.ResponseInputItem;
export type ResponsesParams = OpenAI.Responses.ResponseCreateParamsStreaming;

/** Normalized messages → input items, in order (the system prompt travels as `instructions`). */
export function toResponsesInput(messages: Message[]): InputItem[] {
  return messages.flatMap(itemsOf);
}

/**
 * One message as the items it becomes. A user's: its tool results as function_call_output
 * items, then its text as one user message (a blank line between blocks, as on Chat). An
 * assistant's, in the order it came: reasoning items (only those with their encrypted content:
 * the server keeps none), its text as one assistant message per run of text, its calls.
 */
function itemsOf(message: Message): InputItem[] {
  if (message.role === 'user') return userItems(message.content);
  const items: InputItem[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') items.push({ role: 'assistant', content: text });
    text = '';
  };
  for (const block of message.content) {
    if (block.type === 'text') {
      text += block.text;
      continue;
    }
    flush();
    if (block.type === 'tool_use') {
      items.push({ type: 'function_call', call_id: block.id, name: block.name, arguments: JSON.stringify(block.input ?? {}) });
    } else if (block.type === 'thinking' && block.itemId !== undefined && block.signature) {
      items.push({
        type: 'reasoning',
        id: block.itemId,
        summary: block.thinking === '' ? [] : [{ type: 'summary_text', text: block.thinking }],
        encrypted_content: block.signature,
      });
    }
  }
  flush();
  // A reasoning item must be followed by what it led to; one that led to nothing kept (a cut
  // reply) would be refused, and the model does not need it.
  while (items.at(-1)?.type === 'reasoning') items.pop();
  return items;
}

function userItems(content: ContentBlock[]): InputItem[] {
  const items: InputItem[] = [];
  for (const block of content) {
    if (block.type === 'tool_result') {
      // No error flag on a function call's output; the model still needs to know the call failed.
      const text = block.isError ? `Error: ${block.content}` : block.content;
      items.push({
        type: 'function_call_output',
        call_id: block.toolUseId,
        // A function's output may carry images itself: its text, then each image.
        output: block.images?.length
          ? [
              ...(text === '' ? [] : [{ type: 'input_text' as const, text }]),
              ...block.images.map((image) => ({
                type: 'input_image' as const,
                image_url: dataUrl(image),
                detail: 'auto' as const,
              })),
            ]
          : text,
      });
    }
  }
  if (content.some((b) => b.type === 'image')) {
    items.push({ role: 'user', content: inputParts(content) });
    return items;
  }
  const text = content
    .filter((b) => b.type === 'text')
    .map((b) => b.text)
    .join('\n\n');
  if (text !== '' || items.length === 0) items.push({ role: 'user', content: text });
  return items;
}

/** A user message with images: its text and images as input parts, in order (content-parts.ts). */
function inputParts(content: ContentBlock[]): OpenAI.Responses.ResponseInputMessageContentList {
  return orderedParts<OpenAI.Responses.ResponseInputContent>(content, {
    text: (text) => ({ type: 'input_text', text }),
    image: (url) => ({ type: 'input_image', image_url: url, detail: 'auto' }),
  });
}

/**
 * The streaming request. A reasoning model (the catalogue's word) is asked for its reasoning's
 * encrypted content, to be sent back; others are not (OpenAI refuses the ask for them). An
 * effort it takes goes as `reasoning.effort`.
 */
export function toResponsesParams(request: ModelRequest): ResponsesParams {
  const params: ResponsesParams = {
    model: request.model,
    ...(request.system !== '' ? { instructions: request.system } : {}),
    input: toResponsesInput(request.messages),
    stream: true,
    store: false,
    max_output_tokens: request.maxTokens,
  };
  if (request.tools.length > 0) {
    // Not strict: outrider's schemas leave optional properties optional, which strict mode refuses.
    params.tools = request.tools.map((tool) => ({
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema,
      strict: false,
    }));
  }
  if (openaiReasons(request.model)) params.include = ['reasoning.encrypted_content'];
  const effort = openaiEffort(request.model, request.effort);
  if (effort) params.reasoning = { effort };
  return params;
}

/** The request body as JSON text: each history message's items serialized once (by identity), the rest once per tool list. */
export function responsesRequestBody(request: ModelRequest, caches: BodyCaches): string {
  const head = headJson(caches.head, request, request.effort, () =>
    JSON.stringify(toResponsesParams({ ...request, messages: [] })),
  );
  // A message can become no item at all (reasoning the server cannot take back): no piece for it.
  const pieces = request.messages.map((message) => messageJson(caches.json, message, itemsJson)).filter((json) => json !== '');
  return withMessages(head, pieces, 'input');
}

function itemsJson(message: Message): string {
  return itemsOf(message)
    .map((item) => JSON.stringify(item))
    .join(',');
}
