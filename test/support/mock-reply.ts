/**
 * What the mock provider is scripted with (a reply, a fault), what it records of a request,
 * and a reply made ready for the wire encoders (mock-wire.ts, mock-responses-wire.ts).
 */
import type http from 'node:http';
import type { MockToolCall, MockUsage, RawBlock, ResolvedReply, WireFormat } from './mock-wire.js';

/** A failure the mock injects instead of (or in the middle of) a normal reply. */
export type Fault =
  /**
   * An HTTP error with the provider's own error body; `retryAfter` in seconds, or a raw header value;
   * `headers` sent as well (retry-after-ms, rate-limit headers).
   */
  | {
      kind: 'status';
      status: number;
      retryAfter?: number | string;
      headers?: Record<string, string>;
      message?: string;
      type?: string;
      code?: string | null;
    }
  /** 200 and `afterChunks` SSE events, then the socket is destroyed mid-message. */
  | { kind: 'cut'; afterChunks: number }
  /** 200 and `afterChunks` SSE events, then the body ends cleanly, short of the final event. */
  | { kind: 'truncate'; afterChunks: number }
  /** The socket is destroyed before any response byte. */
  | { kind: 'reset' }
  /** `afterChunks` good events (default 1), then a data line that is not JSON, then the end. */
  | { kind: 'malformed'; afterChunks?: number }
  /** `afterChunks` good events (default 1), then an in-stream error event (Anthropic `event: error`, OpenAI `{"error": …}`, Responses `type: "error"`; `type` its code there). */
  | { kind: 'stream_error'; afterChunks?: number; type?: string; message?: string }
  /** Never answers; the request stays open until the client gives up. */
  | { kind: 'hang' }
  /** 200 and `afterChunks` SSE events, then nothing more until the client gives up (a reply still streaming). */
  | { kind: 'stall'; afterChunks: number }
  /**
   * 200 and `afterChunks` SSE events (default 1), then a keep-alive every `intervalMs` (default 5)
   * until the client goes away: Anthropic's `event: ping`, an SSE comment for OpenAI (as OpenRouter sends).
   */
  | { kind: 'pings'; afterChunks?: number; intervalMs?: number };

/**
 * One scripted reply. `stopReason` is sent as-is, except that the normalized names
 * (end_turn, tool_use, max_tokens) are translated for OpenAI and vice versa.
 */
export interface Reply {
  text?: string;
  thinking?: string;
  /** Signature of the thinking block (Anthropic only); a fixed default when omitted. */
  signature?: string;
  toolCalls?: MockToolCall[];
  usage?: Partial<MockUsage>;
  stopReason?: string;
  /** OpenAI only: send no usage chunk even when asked, as some compatible servers do. */
  omitUsage?: boolean;
  /** Anthropic only: content blocks sent exactly as given after the others (malformed output). */
  rawBlocks?: RawBlock[];
  /** OpenAI only: chunk deltas sent exactly as given before the finish chunk (malformed output). */
  rawDeltas?: unknown[];
  /** Responses only: events sent exactly as given before response.completed (malformed output). */
  rawEvents?: unknown[];
  /** Extra wait before the first byte. */
  delayMs?: number;
  /** Wait between SSE events. */
  chunkDelayMs?: number;
  fault?: Fault;
}

/** One request the mock received. */
export interface RecordedRequest {
  format: WireFormat;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any;
  raw: string;
  /** Date.now() when the request arrived; for reading a log, not for asserting durations. */
  receivedAt: number;
  /** Date.now() when its response ended (sent in full, cut, or the client went away); unset while in flight. */
  answeredAt?: number;
}

export type Responder = (request: RecordedRequest) => Reply | Promise<Reply>;

/** Rough token count the way tests can predict it: characters / 4, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A reply with its defaults filled in for the encoders: ids, usage estimated from the request, what the request asked for. */
export function resolveReply(reply: Reply, request: RecordedRequest, serial: number): ResolvedReply {
  const format = request.format;
  const text = reply.text ?? '';
  const thinking = reply.thinking ?? '';
  const toolCalls = (reply.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? (format === 'anthropic' ? `toolu_mock_${serial}_${i}` : `call_mock_${serial}_${i}`),
    name: call.name,
    args: typeof call.args === 'string' ? call.args : JSON.stringify(call.args ?? {}),
  }));
  const outputChars = text + thinking + toolCalls.map((c) => c.name + c.args).join('');
  return {
    id:
      format === 'anthropic' ? `msg_mock_${serial}` : format === 'responses' ? `resp_mock_${serial}` : `chatcmpl-mock-${serial}`,
    model: typeof request.body?.model === 'string' ? request.body.model : 'mock-model',
    text,
    thinking,
    signature: reply.signature ?? `sig_mock_${serial}`,
    toolCalls,
    usage: {
      input: reply.usage?.input ?? estimateTokens(request.raw),
      output: reply.usage?.output ?? estimateTokens(outputChars),
      cacheRead: reply.usage?.cacheRead ?? 0,
      cacheWrite: reply.usage?.cacheWrite ?? 0,
      ...(reply.usage?.reasoning !== undefined ? { reasoning: reply.usage.reasoning } : {}),
    },
    stopReason: reply.stopReason,
    includeUsage: format !== 'openai' || (request.body?.stream_options?.include_usage === true && !reply.omitUsage),
    rawBlocks: reply.rawBlocks ?? [],
    rawDeltas: reply.rawDeltas ?? [],
    rawEvents: reply.rawEvents ?? [],
    encryptedReasoning: Array.isArray(request.body?.include) && request.body.include.includes('reasoning.encrypted_content'),
  };
}
