/**
 * Sorting provider failures into "retry", "give up with a message the user can act
 * on" and "the user aborted". Works on the SDK errors by shape (status, headers, body,
 * cause codes); the SDK's error classes are passed in, since the SDKs load lazily.
 */
import { scrubForms, secretForms } from '../platform/secret-forms.js';
import { StreamTimeoutError } from './timeouts.js';
import { ProviderError } from './types.js';

/** What the classifier needs to phrase a message. */
export interface ErrorContext {
  /** "Anthropic" or "OpenAI". */
  label: string;
  /** The environment variable that holds the key, for "check X" hints. */
  keyEnv: string;
  model: string;
  /** The custom base URL, if any. */
  baseURL?: string;
  /** The environment variable a base URL may come from (`ANTHROPIC_BASE_URL`), named in hints beside the flag and setting. */
  urlEnv?: string;
  /** Scrubbed from every message. */
  apiKey: string;
}

export type Classified =
  | { kind: 'abort' }
  | {
      kind: 'retry';
      /** Short, for the `retry` event: "overloaded (529)". */
      reason: string;
      status?: number;
      retryAfterMs?: number;
      /** Appended to the "failed after N retries" message. */
      hint?: string;
      /** At most this many retries for this kind of failure, whatever the setting says. */
      maxRetries?: number;
      /** A fixed delay before the retry, instead of the backoff. */
      delayMs?: number;
      /** A rate limit (429) or an overloaded model (529): it pauses every call to the provider (rate-limit-gate.ts). */
      limit?: 'rate' | 'overload';
    }
  | { kind: 'fatal'; error: ProviderError };

/** Thrown by a provider attempt whose stream ended before the final event. */
export class StreamCutError extends Error {
  constructor(detail: string) {
    super(`stream ended before the message was complete (${detail})`);
    this.name = 'StreamCutError';
  }
}

/** The error every provider throws on abort, whatever the SDK threw. */
export function abortError(): Error {
  const error = new Error('The request was aborted.');
  error.name = 'AbortError';
  return error;
}

/** Removes the secret from text, in any encoding it may be in; short secrets are left alone to avoid mangling words. */
export function scrubSecret(text: string, secret: string): string {
  if (secret.length < 6) return text;
  return scrubForms(text, secretForms(secret));
}

type Loose = Record<string, unknown>;

function asObject(value: unknown): Loose | undefined {
  return typeof value === 'object' && value !== null ? (value as Loose) : undefined;
}

/** The first of `candidates` that is a non-empty string. */
function firstString(...candidates: unknown[]): string | undefined {
  return candidates.find((c): c is string => typeof c === 'string' && c !== '');
}

/** The provider's own error message, whichever SDK wrapped it. */
function apiMessage(err: Loose): string | undefined {
  const body = asObject(err.error);
  return firstString(asObject(body?.error)?.message, body?.message, err.apiMessage);
}

function apiType(err: Loose): string | undefined {
  const body = asObject(err.error);
  return firstString(err.type, asObject(body?.error)?.type, body?.type);
}

function apiCode(err: Loose): string | undefined {
  const body = asObject(err.error);
  return firstString(err.code, body?.code, asObject(body?.error)?.code);
}

function header(headers: unknown, name: string): string | null {
  const h = asObject(headers);
  if (!h) return null;
  if (typeof h.get === 'function') return (h.get as (key: string) => string | null)(name);
  const value = h[name];
  return typeof value === 'string' ? value : null;
}

/** Milliseconds from `retry-after-ms`, or `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(headers: unknown, now: number): number | undefined {
  const ms = Number(header(headers, 'retry-after-ms'));
  if (header(headers, 'retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = header(headers, 'retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Error codes found anywhere along the `cause` chain, plus the messages. */
function causeChain(err: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 6 && current; depth++) {
    const o = asObject(current);
    if (!o) break;
    if (typeof o.code === 'string') codes.push(o.code);
    if (typeof o.message === 'string') messages.push(o.message);
    current = o.cause;
  }
  return { codes, messages };
}

const CONTEXT_TOO_LONG =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|too many tokens/i;

function isContextTooLong(err: Loose, message: string): boolean {
  return apiCode(err) === 'context_length_exceeded' || CONTEXT_TOO_LONG.test(message);
}

function endpoint(ctx: ErrorContext): string {
  return ctx.baseURL ? `the base URL ${ctx.baseURL}` : `the ${ctx.label} API`;
}

function statusError(err: Loose, status: number, ctx: ErrorContext, now: number): Classified {
  const message = apiMessage(err) ?? `HTTP ${status}`;
  const type = apiType(err);
  if (status === 429) {
    const retryAfterMs = parseRetryAfter(err.headers, now);
    // OpenAI's spent quota is a 429 too, but no wait ends it: retried as any failure, within maxRetries.
    const limit = apiCode(err) === 'insufficient_quota' ? {} : { limit: 'rate' as const };
    return { kind: 'retry', reason: `rate limited (429)`, status, retryAfterMs, ...limit };
  }
  if (status === 529 || type === 'overloaded_error') {
    return {
      kind: 'retry',
      reason: `overloaded (${status})`,
      status,
      retryAfterMs: parseRetryAfter(err.headers, now),
      limit: 'overload',
    };
  }
  if (status >= 500 || status === 408 || status === 409) {
    return {
      kind: 'retry',
      reason: `server error (${status}): ${message}`,
      status,
      retryAfterMs: parseRetryAfter(err.headers, now),
    };
  }
  const fatal = (text: string, extra: { contextTooLong?: boolean } = {}): Classified => ({
    kind: 'fatal',
    error: new ProviderError(text, { status, retryable: false, ...extra }),
  });
  if (status === 401) return fatal(`${ctx.label} rejected the API key (401): check ${ctx.keyEnv}.`);
  if (status === 403) {
    return fatal(`${ctx.label} refused access (403): ${message}; check that ${ctx.keyEnv} may use model "${ctx.model}".`);
  }
  if (status === 404) {
    return fatal(`${ctx.label} model "${ctx.model}" or endpoint not found (404): check --model and --base-url.`);
  }
  if (status === 413 || isContextTooLong(err, message)) {
    return fatal(`${ctx.label} rejected the request as too long for the model's context (${status}): ${message}`, {
      contextTooLong: true,
    });
  }
  return fatal(`${ctx.label} rejected the request (${status}): ${message}`);
}

/** An `error` event inside an otherwise successful stream (no HTTP status). */
function streamErrorEvent(err: Loose, ctx: ErrorContext): Classified {
  const message = apiMessage(err) ?? 'unknown error';
  const type = apiType(err);
  if (type === 'overloaded_error') return { kind: 'retry', reason: 'overloaded (stream error event)', limit: 'overload' };
  if (type === 'invalid_request_error' || type === 'authentication_error' || type === 'permission_error') {
    const contextTooLong = isContextTooLong(err, message);
    return { kind: 'fatal', error: new ProviderError(`${ctx.label} rejected the request: ${message}`, { contextTooLong }) };
  }
  return { kind: 'retry', reason: `stream error: ${message}` };
}

const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'ECONNABORTED', 'EAI_AGAIN']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

function networkError(err: unknown, ctx: ErrorContext): Classified | undefined {
  const { codes, messages } = causeChain(err);
  const text = messages.join(': ');
  if (codes.includes('ECONNREFUSED')) {
    return {
      kind: 'retry',
      reason: `connection refused by ${endpoint(ctx)}`,
      hint: ctx.baseURL
        ? `check the base URL ${ctx.baseURL} (${urlSources(ctx)}) and that the server there is running.`
        : 'check your network connection.',
      // Nothing listens on this machine's port: one quick look in case it was restarting, then say so.
      ...(isLoopback(ctx.baseURL) ? { maxRetries: 1, delayMs: LOOPBACK_RETRY_MS } : {}),
    };
  }
  if (codes.includes('ENOTFOUND')) {
    const where = ctx.baseURL ? `the host of ${ctx.baseURL}` : `the ${ctx.label} API host`;
    return {
      kind: 'fatal',
      error: new ProviderError(
        `Cannot resolve ${where} (ENOTFOUND): check ${ctx.baseURL ? `the base URL (${urlSources(ctx)})` : 'your proxy settings'} and your network connection.`,
      ),
    };
  }
  // fetch refuses some ports outright (1, 22, 25, 6000…): no retry can help.
  if (messages.includes('bad port')) {
    const port = ctx.baseURL?.match(/^[a-z]+:\/\/[^/]*:(\d+)/i)?.[1];
    return {
      kind: 'fatal',
      error: new ProviderError(
        `Cannot connect to ${endpoint(ctx)}: fetch refuses ${port ? `port ${port}` : 'its port'} (a blocked port); use another port in --base-url.`,
      ),
    };
  }
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return { kind: 'retry', reason: 'request timed out' };
  // undici's word for a response body whose connection dropped.
  if (/\bterminated\b/.test(text)) return { kind: 'retry', reason: 'connection lost mid-stream' };
  if (codes.some((c) => RESET_CODES.has(c)) || /socket hang up|other side closed|ECONNRESET/i.test(text)) {
    return { kind: 'retry', reason: 'connection reset' };
  }
  return undefined;
}

const LOOPBACK_RETRY_MS = 250;

/** Where a base URL is set: the flag, the setting, or the provider's variable (whichever the user used). */
function urlSources(ctx: ErrorContext): string {
  return `set by --base-url, the baseURL setting or ${ctx.urlEnv ?? "the provider's BASE_URL variable"}`;
}

/** True for a URL on this machine: localhost, 127.0.0.0/8, ::1, 0.0.0.0. */
export function isLoopback(url: string | undefined): boolean {
  if (!url) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    host === '0.0.0.0' ||
    /^127(\.\d{1,3}){3}$/.test(host)
  );
}

type ErrorClass = abstract new (...args: never[]) => Error;

/** The error classes both SDKs export under the same names. */
export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIConnectionError: ErrorClass;
  APIConnectionTimeoutError: ErrorClass;
}

/** Decides what to do about one failed attempt. */
export function classifyError(error: unknown, ctx: ErrorContext, sdk?: SdkErrorClasses, now: number = Date.now()): Classified {
  const err = asObject(error) ?? { message: String(error) };
  if (err.name === 'AbortError' || (sdk && error instanceof sdk.APIUserAbortError)) return { kind: 'abort' };
  if (error instanceof ProviderError) return { kind: 'fatal', error };
  if (error instanceof StreamCutError) return { kind: 'retry', reason: error.message };
  if (error instanceof StreamTimeoutError) return { kind: 'retry', reason: error.message, hint: error.hint };
  if (sdk && error instanceof sdk.APIConnectionTimeoutError) return { kind: 'retry', reason: 'request timed out' };
  if (sdk && error instanceof sdk.APIConnectionError) {
    return networkError(error, ctx) ?? { kind: 'retry', reason: `connection error: ${causeChain(error).messages.join(': ')}` };
  }
  if (sdk && error instanceof sdk.APIError) {
    return typeof err.status === 'number' ? statusError(err, err.status, ctx, now) : streamErrorEvent(err, ctx);
  }
  // Errors from reading the body of a stream reach us unwrapped by the SDK.
  const network = networkError(error, ctx);
  if (network) return network;
  if (error instanceof SyntaxError) return { kind: 'retry', reason: `malformed stream data (${error.message})` };
  const message = typeof err.message === 'string' ? err.message : String(error);
  return { kind: 'fatal', error: new ProviderError(`${ctx.label} request failed: ${message}`) };
}

/** The error after the last retry failed too. */
export function exhaustedError(
  ctx: ErrorContext,
  retries: number,
  last: { reason: string; status?: number; hint?: string },
): ProviderError {
  const hint = last.hint ? `: ${last.hint}` : '';
  const count = retries === 1 ? '1 retry' : `${retries} retries`;
  return new ProviderError(`${ctx.label} failed after ${count}: ${last.reason}${hint}`, {
    status: last.status,
    retryable: true,
  });
}

/** A copy of the error with the API key removed from its message. */
export function scrubError(error: ProviderError, apiKey: string): ProviderError {
  const message = scrubSecret(error.message, apiKey);
  if (message === error.message) return error;
  return new ProviderError(message, error.options);
}
