import type * as z from 'zod';
import type { ToolSchema } from '../providers/types.js';
import { type AnyTool, type ToolContext, type ToolOutput, describeZodError, toolSchema } from './define.js';

/** Shapes a tool's raw output before the model sees it (caps, large-result handoff). */
export type OutputLimiter = (output: ToolOutput, toolName: string) => ToolOutput;

/** The tools a loop may call, by name, in declaration order. */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private schemaCache: ToolSchema[] | undefined;

  /**
   * `schemaOf` holds each tool's JSON Schema once made: a filtered view (a sub-agent's
   * tools) shares its parent's, so 32 sub-agents convert each zod schema once, not 32 times.
   */
  constructor(
    tools: AnyTool[] = [],
    private readonly schemaOf = new Map<AnyTool, ToolSchema>(),
  ) {
    for (const tool of tools) this.add(tool);
  }

  add(tool: AnyTool): void {
    if (this.byName.has(tool.name)) throw new Error(`tool ${tool.name} is declared twice`);
    this.byName.set(tool.name, tool);
    this.schemaCache = undefined;
  }

  /** Takes a tool out (an MCP server that went away); false when there was none of that name. */
  remove(name: string): boolean {
    const removed = this.byName.delete(name);
    if (removed) this.schemaCache = undefined;
    return removed;
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  all(): AnyTool[] {
    return [...this.byName.values()];
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** A registry holding only the tools `keep` accepts, in the same order (and sharing their schemas). */
  filter(keep: (tool: AnyTool) => boolean): ToolRegistry {
    return new ToolRegistry(this.all().filter(keep), this.schemaOf);
  }

  /** The schemas sent to the model; the same array (and bytes) on every call, made on the first. */
  schemas(): ToolSchema[] {
    this.schemaCache ??= this.all().map((tool) => {
      let schema = this.schemaOf.get(tool);
      if (!schema) {
        schema = toolSchema(tool);
        this.schemaOf.set(tool, schema);
      }
      return schema;
    });
    return this.schemaCache;
  }

  /** Parses arguments with the tool's schema: the parsed value, or an error for the model. */
  parseArgs(tool: AnyTool, input: unknown): { ok: true; args: unknown } | { ok: false; error: string } {
    const parsed = (tool.schema as z.ZodType).safeParse(input ?? {});
    if (parsed.success) return { ok: true, args: parsed.data };
    return { ok: false, error: `Invalid arguments for ${tool.name}: ${describeZodError(parsed.error)}` };
  }
}

/** Runs a tool with parsed arguments; a throw becomes an error result the model can read. */
export async function executeTool(tool: AnyTool, args: unknown, ctx: ToolContext): Promise<ToolOutput> {
  try {
    const out = await tool.execute(args, ctx);
    return typeof out === 'string' ? { content: out } : out;
  } catch (error) {
    if (ctx.signal.aborted) return { content: `${tool.name} was interrupted`, isError: true };
    const message = error instanceof Error ? error.message : String(error);
    return { content: `${tool.name} failed: ${message}`, isError: true };
  }
}
