import type { OutputLimiter } from './registry.js';

/** Default size over which a tool result is handed off instead of put in the context. */
export const HANDOFF_THRESHOLD = 32 * 1024;
const PREVIEW_CHARS = 4 * 1024;

/**
 * Large tool results of one session, kept in memory by id so the model can page or grep
 * them with read_result instead of carrying them whole in its context.
 */
export class ResultStore {
  private readonly results = new Map<string, string>();
  private next = 1;

  put(content: string): string {
    const id = `r${this.next++}`;
    this.results.set(id, content);
    return id;
  }

  get(id: string): string | undefined {
    return this.results.get(id);
  }

  ids(): string[] {
    return [...this.results.keys()];
  }

  /** A limiter that hands results over `threshold` characters off to this store. */
  limiter(threshold = HANDOFF_THRESHOLD): OutputLimiter {
    return (output, toolName) => {
      if (output.content.length <= threshold) return output;
      const id = this.put(output.content);
      const lines = output.content.split('\n').length;
      return {
        ...output,
        content:
          `${output.content.slice(0, PREVIEW_CHARS)}\n` +
          `… [${toolName} output is ${output.content.length} characters, ${lines} lines; stored as result_id ${id}. ` +
          `Page it with read_result {"result_id":"${id}","offset":1,"limit":200} or search it with {"result_id":"${id}","pattern":"…"}] …\n` +
          output.content.slice(-PREVIEW_CHARS),
      };
    };
  }
}
