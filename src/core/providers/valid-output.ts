/**
 * The provider boundary: whatever a backend (or the text-tools parser) assembled, the loop,
 * the transcript and the next request see only valid output. Deltas without text are
 * dropped; the final message is rebuilt by `normalizeAssistant`; tool calls get ids unique in
 * the whole history, and `tool_call_start` events carry the same ids as the message.
 */
import { ToolIds, normalizeAssistant } from './normalize.js';
import { INVALID_TOOL_NAME, type StreamEvent, type StreamFn } from './types.js';

export function withValidOutput(inner: StreamFn): StreamFn {
  return async function* validStream(request, signal) {
    let ids = ToolIds.of(request.messages);
    let assigned = new Map<number, string>();
    for await (const event of inner(request, signal)) {
      const valid = validEvent(event);
      if (!valid) continue;
      switch (valid.type) {
        case 'retry':
          // The message starts over, and so do its ids.
          ids = ToolIds.of(request.messages);
          assigned = new Map();
          yield valid;
          break;
        case 'tool_call_start': {
          const id = assigned.get(valid.index) ?? ids.assign(valid.id);
          assigned.set(valid.index, id);
          yield { ...valid, id };
          break;
        }
        case 'message_end':
          yield { ...valid, message: normalizeAssistant(valid.message, ids, assigned) };
          break;
        default:
          yield valid;
      }
    }
  };
}

/** The event with its fields checked, or undefined for one that carries nothing usable. */
function validEvent(event: StreamEvent): StreamEvent | undefined {
  switch (event.type) {
    case 'text_delta':
    case 'thinking_delta':
      return typeof event.text === 'string' && event.text !== '' ? event : undefined;
    case 'tool_call_start':
      return typeof event.name === 'string' && event.name !== '' ? event : { ...event, name: INVALID_TOOL_NAME };
    case 'tool_call_delta':
      return typeof event.argsDelta === 'string' ? event : undefined;
    default:
      return event;
  }
}
