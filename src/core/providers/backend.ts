import type { SdkErrorClasses } from './errors.js';
import type { HttpFetch } from './http-fetch.js';
import type { AttemptProgress } from './timeouts.js';
import type { ModelRequest, StreamEvent } from './types.js';

/** One provider's single try at a model call, wrapped by the retry layer. */
export interface ProviderBackend {
  /**
   * Yields deltas and ends with `message_end`, or throws (the retry layer classifies it).
   * Reports to `progress` when the server answers and on every content event (pings are not).
   */
  stream(request: ModelRequest, signal: AbortSignal, progress: AttemptProgress): AsyncIterable<StreamEvent>;
  /** The SDK's error classes, once the SDK has been loaded. */
  errorClasses(): SdkErrorClasses | undefined;
  /**
   * Starts loading the SDK and making its client, without waiting (the first call awaits the
   * same load). A failed load is not reported here: the first call reports it.
   */
  preload(): void;
}

export interface BackendConfig {
  apiKey: string;
  baseURL?: string;
  /**
   * The SDK's own request timeout, a backstop behind the watchdog (timeouts.ts): it runs on
   * real time and covers only the wait for headers.
   */
  sdkTimeoutMs: number;
  /** The SDK client's fetch (http-fetch.ts): node:http with keep-alive, no undici. */
  fetch: HttpFetch;
  /** OpenAI: the API every request goes to (the `openai.api` setting); absent: by model and base URL (models.ts openaiApiFor). */
  openaiApi?: 'responses' | 'chat';
}
