/**
 * A model request's JSON body joined from pieces, so a long history is not serialized again on
 * every call: each history message's JSON is made once (by identity: a message never changes
 * once in the history) and the parameters without history are serialized around it. The result
 * is byte for byte JSON.stringify of the whole parameters (both backends test it).
 */
import type { Message, ModelRequest, ToolSchema } from './types.js';

/** Each history message as JSON text, by identity; one per backend, a WeakMap so compacted messages go. */
export type MessageJsonCache = WeakMap<Message, string>;

/**
 * The parameters without history as JSON text, by the request's tool list: a session asks with
 * the same list (and model, system prompt and limit) on every call, and the sessions sharing a
 * backend (a parent and its sub-agents) each have their own. The tool schemas are most of it.
 */
export type HeadJsonCache = WeakMap<readonly ToolSchema[], { key: readonly unknown[]; json: string }>;

/** What one backend keeps between requests to build a body (both sessions' and sub-agents' alike). */
export interface BodyCaches {
  head: HeadJsonCache;
  json: MessageJsonCache;
}

export function bodyCaches(): BodyCaches {
  return { head: new WeakMap(), json: new WeakMap() };
}

/** The message's JSON from the cache, or made by `serialize` and kept. */
export function messageJson(cache: MessageJsonCache, message: Message, serialize: (message: Message) => string): string {
  let json = cache.get(message);
  if (json === undefined) {
    json = serialize(message);
    cache.set(message, json);
  }
  return json;
}

/**
 * The head for `request` from the cache, or made by `serialize` when anything it depends on
 * differs from the last one made for these tools: the model, system prompt and token limit,
 * and `also` (what else the backend puts in it).
 */
export function headJson(cache: HeadJsonCache, request: ModelRequest, also: unknown, serialize: () => string): string {
  const key = [request.model, request.system, request.maxTokens, also];
  const known = cache.get(request.tools);
  if (known && known.key.every((part, i) => part === key[i])) return known.json;
  const json = serialize();
  cache.set(request.tools, { key, json });
  return json;
}

/**
 * `head`, the parameters serialized with `messages: []` (the Responses API's `input: []`), with
 * the history's pieces put in its place. What comes before it (the model name, the Responses
 * API's instructions) are JSON strings, which cannot hold the unescaped text it is found by.
 */
export function withMessages(head: string, pieces: string[], key: 'messages' | 'input' = 'messages'): string {
  const empty = `"${key}":[]`;
  const at = head.indexOf(empty);
  return `${head.slice(0, at)}"${key}":[${pieces.join(',')}]${head.slice(at + empty.length)}`;
}
