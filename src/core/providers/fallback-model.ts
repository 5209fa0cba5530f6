import { ProviderError, type StreamEvent, type StreamFn } from './types.js';

/**
 * `--fallback-model` (Claude Code's flag): when the model stays overloaded after the
 * provider's own retries, and nothing of the answer has been streamed yet, the same request
 * goes to `fallback`, and every later call for that model goes there too. Calls for another
 * model (a sub-agent's own, or the one `/model` switched to) are sent as asked. `notify` is told
 * once, when the switch happens.
 */
export function withFallbackModel(stream: StreamFn, fallback: string, notify: (text: string) => void): StreamFn {
  let overloaded: string | undefined;
  return async function* (request, signal): AsyncGenerator<StreamEvent> {
    if (request.model === overloaded || request.model === fallback) {
      yield* stream({ ...request, model: fallback }, signal);
      return;
    }
    let streamed = false;
    try {
      for await (const event of stream(request, signal)) {
        if (event.type !== 'retry' && event.type !== 'rate_limit') streamed = true;
        yield event;
      }
    } catch (error) {
      if (streamed || signal.aborted || !isOverloaded(error)) throw error;
      overloaded ??= request.model;
      notify(`${request.model} is overloaded (${(error as Error).message}); using the fallback model ${fallback} from now on`);
      yield* stream({ ...request, model: fallback }, signal);
    }
  };
}

function isOverloaded(error: unknown): boolean {
  if (!(error instanceof ProviderError)) return false;
  return error.options.status === 529 || /overloaded/i.test(error.message);
}
