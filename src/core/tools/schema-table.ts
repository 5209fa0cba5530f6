/**
 * The built-in tools' JSON Schemas, made at build time: converting the zod schemas of some
 * twenty tools (z.toJSONSchema, and the first run of its code) is several milliseconds of every
 * start-up, for the same bytes each time. scripts/build.mjs opens a real session (as a run
 * would, over a stand-in model), takes the JSON Schema of every tool it has, and hands the table
 * to the bundle as the constant below. Unbundled (the tests) there is no table and every schema
 * is converted as it always was; a tool the table does not name (MCP tools, skill, the worktree
 * tools outside a repository) is converted at run time too. The zod schema stays the one
 * declaration: test/core/tools/schema-table.test.ts checks that the table and the conversion agree.
 */
import * as z from 'zod';
import type { ToolSchema } from '../providers/types.js';

declare const __OUTRIDER_TOOL_SCHEMAS__: Readonly<Record<string, Record<string, unknown>>> | undefined;

/** The table the build made; undefined when the code is not bundled. */
export const BUILT_TOOL_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> | undefined =
  typeof __OUTRIDER_TOOL_SCHEMAS__ === 'undefined' ? undefined : __OUTRIDER_TOOL_SCHEMAS__;

/** A zod schema as the JSON Schema the model gets, without zod's `$schema` noise. */
export function convertSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...inputSchema } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  return dropSafeIntegerBounds(inputSchema);
}

/** zod states `z.number().int()` bounds as ±2^53; they cost bytes on every request and say nothing. */
function dropSafeIntegerBounds<T>(node: T): T {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'minimum' || key === 'maximum') && Math.abs(value as number) === Number.MAX_SAFE_INTEGER) continue;
    out[key] = dropSafeIntegerBounds(value);
  }
  return out as T;
}

/** The table's input schemas of these tools, by name (what the build stores). */
export function schemaTable(schemas: readonly ToolSchema[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(schemas.map((schema) => [schema.name, schema.inputSchema as Record<string, unknown>]));
}
