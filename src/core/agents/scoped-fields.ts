import * as z from 'zod';
import { type McpServerEntry, mcpServerEntrySchema } from '../config/mcp-servers.js';
import { type HookSettings, hooksSchema } from '../hooks/hook-settings.js';
import type { AgentDefinition, AgentMcpServer, AgentMemoryScope } from './agent-definition.js';

// Claude Code's front matter that shapes one job rather than the agent: `skills` (their text
// opens the job), `mcpServers` (the session's by name, or started for the job alone), `hooks`
// (run for the job's own calls) and `memory` (a folder kept from one job to the next). Read
// here; carried out when a job starts (scoped-run.ts). The file is untrusted: names are bounded
// and checked, and nothing here runs anything.

/** Skills one agent may preload. */
export const MAX_AGENT_SKILLS = 32;
/** MCP servers one agent may name or define. */
export const MAX_AGENT_MCP_SERVERS = 16;
/** Hook groups one agent may define, every event together. */
export const MAX_AGENT_HOOK_GROUPS = 32;

/** A skill's name as skills are named (commands/skills.ts): never a path. */
const SKILL_NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;
/** An MCP server's name as the file gives it: printable, short; tool names sanitize it further (mcp/names.ts). */
const SERVER_NAME = /^[A-Za-z0-9_.-]{1,64}$/;
/** The events a job's own hooks run at; `Stop` is the job's end, as Claude Code maps it. */
const JOB_HOOK_EVENTS: readonly string[] = ['PreToolUse', 'PostToolUse', 'SubagentStop'];

const notGiven = (value: unknown) => (value === null ? undefined : value);

const skillsSchema = z.preprocess(
  notGiven,
  z
    .union([z.array(z.union([z.string(), z.number(), z.null()])), z.string()], {
      error: 'a list of skill names such as [pdf, changelog]',
    })
    .transform((value) => (typeof value === 'string' ? value.split(',') : value.filter((item) => item !== null)))
    .transform((items) => items.map((item) => String(item).trim()).filter(Boolean))
    .pipe(z.array(z.string()).max(MAX_AGENT_SKILLS, { error: `at most ${MAX_AGENT_SKILLS} skill names` }))
    .optional(),
);

/** One item of the list: a name, or `{ name: entry }` (several keys: several servers). */
const serverItem = z.union([z.string(), z.record(z.string(), mcpServerEntrySchema)], {
  error: 'a server name such as "github", or { name: { command: …, args: […] } }',
});

const mcpServersSchema = z.preprocess(
  // The .mcp.json shape (`{ name: entry }`) is read as a list of one-server items.
  (value) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.entries(value as Record<string, unknown>).map(([name, entry]) => ({ [name]: entry }))
      : notGiven(value),
  z
    .array(serverItem, { error: 'a list of server names or { name: { command: … } } entries' })
    .transform((items) =>
      items.flatMap((item): AgentMcpServer[] =>
        typeof item === 'string'
          ? [{ name: item.trim() }]
          : Object.entries(item).map(([name, entry]) => ({ name: name.trim(), entry: entry as McpServerEntry })),
      ),
    )
    .pipe(
      z
        .array(z.custom<AgentMcpServer>())
        .max(MAX_AGENT_MCP_SERVERS, { error: `at most ${MAX_AGENT_MCP_SERVERS} servers` })
        .refine((servers) => servers.every((server) => SERVER_NAME.test(server.name)), {
          error: 'server names of letters, digits, "_", "-" or "." (at most 64)',
        }),
    )
    .optional(),
);

const hooksFieldSchema = z.preprocess(
  notGiven,
  hooksSchema
    .refine((hooks) => Object.values(hooks).flat().length <= MAX_AGENT_HOOK_GROUPS, {
      error: `at most ${MAX_AGENT_HOOK_GROUPS} hook groups`,
    })
    .optional(),
);

const memorySchema = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : notGiven(value)),
  z.enum(['user', 'project', 'local'], { error: 'one of user, project, local' }).optional(),
);

/** The four fields' schemas, joined into the front matter's (definitions.ts). */
export const scopedFieldSchemas = {
  skills: skillsSchema,
  mcpServers: mcpServersSchema,
  hooks: hooksFieldSchema,
  memory: memorySchema,
};

/** What the schemas made of the fields. */
export interface ScopedFields {
  skills?: string[];
  mcpServers?: AgentMcpServer[];
  hooks?: HookSettings;
  memory?: AgentMemoryScope;
}

/**
 * Sets the fields on `definition`; returns the notes for the file's warning line: a skill name
 * that cannot be one, a server named twice, a hook event that has no moment in a job.
 */
export function applyScopedFields(definition: AgentDefinition, fields: ScopedFields): string[] {
  const notes: string[] = [];
  const quoted = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');
  if (fields.skills?.length) {
    const bad = fields.skills.filter((name) => !SKILL_NAME.test(name));
    if (bad.length) notes.push(`skills: dropped ${quoted(bad)}: not a skill name (lowercase letters, digits, "-", "_", ".")`);
    const kept = [...new Set(fields.skills.filter((name) => SKILL_NAME.test(name)))];
    if (kept.length) definition.skills = kept;
  }
  if (fields.mcpServers?.length) {
    const seen = new Set<string>();
    const twice: string[] = [];
    const kept: AgentMcpServer[] = [];
    for (const server of fields.mcpServers) {
      if (seen.has(server.name)) twice.push(server.name);
      else kept.push(server);
      seen.add(server.name);
    }
    if (twice.length) notes.push(`mcpServers: ${quoted(twice)} given twice; the first is used`);
    definition.mcpServers = kept;
  }
  if (fields.hooks) {
    const { hooks, dropped } = jobHooks(fields.hooks);
    if (dropped.length) {
      notes.push(
        `hooks: ${dropped.join(', ')} ${dropped.length === 1 ? 'does' : 'do'} not run for a job (PreToolUse, PostToolUse, Stop do)`,
      );
    }
    if (Object.keys(hooks).length) definition.hooks = hooks;
  }
  if (fields.memory) definition.memory = fields.memory;
  return notes;
}

/** The file's hooks for its jobs: `Stop` joins SubagentStop (the job's end), events a job has no moment for are dropped. */
function jobHooks(hooks: HookSettings): { hooks: HookSettings; dropped: string[] } {
  const kept: HookSettings = {};
  const dropped: string[] = [];
  for (const [event, groups] of Object.entries(hooks)) {
    const name = event === 'Stop' ? 'SubagentStop' : event;
    if (!JOB_HOOK_EVENTS.includes(name)) {
      dropped.push(JSON.stringify(event));
      continue;
    }
    if (groups.length) kept[name] = [...(kept[name] ?? []), ...groups];
  }
  return { hooks: kept, dropped };
}

/** True when a definition shapes its jobs with any of the four fields. */
export function hasScopedFields(definition: AgentDefinition): boolean {
  return Boolean(definition.mcpServers?.length || definition.hooks || definition.memory);
}
