import type { Message, ModelRequest, StreamEvent, StreamFn, Usage } from '../../src/core/providers/types.js';

/** One scripted model response for the in-process fake stream. */
export interface FakeReply {
  text?: string;
  toolCalls?: { id?: string; name: string; args: unknown }[];
  usage?: Partial<Usage>;
  /** Throw this instead of answering. */
  error?: Error;
  /** Never answer; end only when the signal aborts. */
  hang?: boolean;
  /** Resolve before answering (lets a test hold a response open). */
  wait?: Promise<unknown>;
}

export type FakeScript = FakeReply[] | ((request: ModelRequest, index: number) => FakeReply | Promise<FakeReply>);

export interface FakeStream extends StreamFn {
  requests: ModelRequest[];
}

/** A StreamFn answering from a script, recording each request (deep-copied). */
export function fakeStream(script: FakeScript): FakeStream {
  const requests: ModelRequest[] = [];
  const fn = async function* (request: ModelRequest, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    const index = requests.length;
    requests.push(structuredClone(request));
    const reply = Array.isArray(script) ? script[index] : await script(request, index);
    if (!reply) throw new Error(`fake stream: no scripted reply for request ${index + 1}`);
    if (reply.wait) await reply.wait;
    if (reply.hang) {
      await new Promise((_, reject) => {
        if (signal.aborted) reject(abortError());
        signal.addEventListener('abort', () => reject(abortError()), { once: true });
      });
    }
    if (signal.aborted) throw abortError();
    if (reply.error) throw reply.error;
    const message: Message = { role: 'assistant', content: [] };
    if (reply.text) {
      yield { type: 'text_delta', text: reply.text };
      message.content.push({ type: 'text', text: reply.text });
    }
    (reply.toolCalls ?? []).forEach((call, i) => {
      message.content.push({ type: 'tool_use', id: call.id ?? `call_${index + 1}_${i + 1}`, name: call.name, input: call.args });
    });
    yield {
      type: 'message_end',
      message,
      stopReason: reply.toolCalls?.length ? 'tool_use' : 'end_turn',
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, ...reply.usage },
    };
  };
  return Object.assign(fn, { requests });
}

function abortError(): Error {
  const error = new Error('aborted');
  error.name = 'AbortError';
  return error;
}
