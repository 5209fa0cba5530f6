import * as z from 'zod';
import type { Workspace } from '../platform/paths.js';
import type { ImageBlock, ToolSchema } from '../providers/types.js';
import { BUILT_TOOL_SCHEMAS, convertSchema } from './schema-table.js';

export type { Workspace } from '../platform/paths.js';

/** What a tool gets besides its arguments. */
export interface ToolContext {
  signal: AbortSignal;
  workspace: Workspace;
  /** Live progress for the UI (a line of output, a status). */
  onUpdate?: (text: string) => void;
  /** The id of the model's tool call being executed. */
  callId?: string;
  /**
   * Set when the call runs without anyone's word because the policy judged it read-only:
   * the tool must run it so that a mistaken judgement cannot do harm (see read-only-sandbox.ts).
   */
  sandbox?: 'read-only';
  /** The sub-agent job whose loop makes the call; undefined for the parent. Jobs it starts are its own. */
  jobId?: string;
}

/** What a tool returns: text for the model, flagged when it is an error, and any images it shows the model. */
export interface ToolOutput {
  content: string;
  isError?: boolean;
  /** Checked before they are returned (image-block.ts): every later request carries them. */
  images?: ImageBlock[];
}

/**
 * What a tool may do, for the permission policy: `read-only` tools change nothing outside
 * the session (they read, or keep session state such as the todo list), `mutating` ones
 * change files or run programs, `agent` tools drive the session's own sub-agents (whose
 * tools are gated in turn), `network` tools send requests off the machine.
 */
export type ToolKind = 'read-only' | 'mutating' | 'agent' | 'network';

export interface ToolDefinition<S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: S;
  /**
   * A JSON Schema sent to the model as it is, instead of one made from `schema` (tools declared
   * elsewhere, such as MCP servers'); `schema` then only checks that the arguments are an object.
   */
  inputSchema?: Record<string, unknown>;
  kind: ToolKind;
  /**
   * May run alongside the other calls of the same response. Independent of `kind`: a poll
   * waits and a stop kills processes, yet both are safe beside any other call. Default: read-only tools.
   */
  parallel?: boolean;
  /** Paths the call would touch, for the permission policy (relative or absolute). */
  paths?: (args: z.infer<S>) => string[];
  /** A short label for activity rows: the tool's first argument, usually. */
  label?: (args: z.infer<S>) => string;
  execute: (args: z.infer<S>, ctx: ToolContext) => Promise<ToolOutput | string>;
}

/** Declares a tool once: name, description, zod schema, kind and behaviour. */
export function defineTool<S extends z.ZodType>(def: ToolDefinition<S>): ToolDefinition<S> {
  return def;
}

/** The arguments of a tool whose schema is raw JSON Schema: any object (its own server validates them). */
export const jsonObjectArgs = z.record(z.string(), z.unknown());
export type JsonObjectArgs = z.infer<typeof jsonObjectArgs>;

/** Declares a tool whose parameters are a JSON Schema written elsewhere (an MCP server's), sent as is. */
export function defineJsonSchemaTool(
  def: Omit<ToolDefinition<typeof jsonObjectArgs>, 'schema' | 'inputSchema'> & { inputSchema: Record<string, unknown> },
): ToolDefinition<typeof jsonObjectArgs> {
  return { ...def, schema: jsonObjectArgs };
}

/** Whether a call of `tool` may run at the same time as the other calls of its response. */
export function runsAlongside(tool: AnyTool): boolean {
  return tool.parallel ?? tool.kind === 'read-only';
}

/** Any tool, whatever its schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;

/**
 * The JSON Schema sent to the model: the tool's own when it has one, else its zod schema's,
 * from the build's table when the table has the tool (schema-table.ts), converted otherwise.
 */
export function toolSchema(
  tool: AnyTool,
  table: Readonly<Record<string, Record<string, unknown>>> | undefined = BUILT_TOOL_SCHEMAS,
): ToolSchema {
  if (tool.inputSchema) return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
  const inputSchema = table?.[tool.name] ?? convertSchema(tool.schema as z.ZodType);
  return { name: tool.name, description: tool.description, inputSchema };
}

/** One line naming what went wrong in the arguments, for the model to act on. */
export function describeZodError(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(arguments)'}: ${issue.message}`).join('; ');
}
