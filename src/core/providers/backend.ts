import type { SdkErrorClasses } from './errors.js';
import type { ModelRequest, StreamEvent } from './types.js';

/** One provider's single try at a model call, wrapped by the retry layer. */
export interface ProviderBackend {
  /** Yields deltas and ends with `message_end`, or throws (the retry layer classifies it). */
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<StreamEvent>;
  /** The SDK's error classes, once the SDK has been loaded. */
  errorClasses(): SdkErrorClasses | undefined;
}

export interface BackendConfig {
  apiKey: string;
  baseURL?: string;
}
