import type { AnyTool } from '../tools/define.js';
import { resolveWorkspacePath } from '../platform/paths.js';
import { ToolRegistry } from '../tools/registry.js';

/**
 * Which job wrote which file (by real path) in this session, so two jobs editing one checkout
 * hear of each other, and a merge can name the other jobs that touched its files.
 */
export class FileWrites {
  private readonly writers = new Map<string, Set<string>>();

  /** Records that `jobId` wrote `file`; returns the other jobs that wrote it before. */
  record(jobId: string, file: string): string[] {
    const set = this.writers.get(file) ?? new Set<string>();
    this.writers.set(file, set);
    const others = [...set].filter((id) => id !== jobId);
    set.add(jobId);
    return others;
  }

  /** The jobs that wrote `file`. */
  writersOf(file: string): string[] {
    return [...(this.writers.get(file) ?? [])];
  }

  /**
   * A job's tools with its successful writes recorded; when another job still running wrote
   * the same file, the result says so, so the model can check before the two overwrite each other.
   */
  track(jobId: string, tools: ToolRegistry, isRunning: (jobId: string) => boolean): ToolRegistry {
    return new ToolRegistry(
      tools.all().map((tool) => (tool.kind === 'mutating' && tool.paths ? this.wrap(jobId, tool, isRunning) : tool)),
    );
  }

  private wrap(jobId: string, tool: AnyTool, isRunning: (jobId: string) => boolean): AnyTool {
    return {
      ...tool,
      execute: async (args, ctx) => {
        const output = await tool.execute(args, ctx);
        const result = typeof output === 'string' ? { content: output } : output;
        if (result.isError) return result;
        const notes: string[] = [];
        for (const requested of tool.paths!(args)) {
          const file = resolveWorkspacePath(ctx.workspace, requested).real;
          const running = this.record(jobId, file).filter(isRunning);
          if (running.length) {
            notes.push(
              `Note: ${running.join(', ')} (still running) also wrote ${requested} in this checkout; re-read it before editing further, as your changes and theirs may overwrite each other.`,
            );
          }
        }
        return notes.length ? { ...result, content: `${result.content}\n${notes.join('\n')}` } : result;
      },
    };
  }
}
