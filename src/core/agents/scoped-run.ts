import type { ChildRunner, ChildRunRequest } from '../jobs/job-types.js';
import { combinedHooks } from '../hooks/combined-hooks.js';
import type { HookDispatcher } from '../hooks/dispatcher.js';
import { loopHooks } from '../hooks/hook-points.js';
import { type HookTable, compileHooks } from '../hooks/matcher.js';
import type { LoopHooks } from '../loop/loop-hooks.js';
import type { AnyTool, Workspace } from '../tools/define.js';
import { ToolRegistry } from '../tools/registry.js';
import type { AgentDefinition } from './agent-definition.js';
import { type ChildRunDeps, childTools, createChildRunner } from './child-run.js';
import { DEFAULT_READ_ONLY_TOOLS } from './definitions.js';
import {
  MEMORY_FILE_TOOLS,
  type MemoryFolder,
  type MemoryPlaces,
  confinedTool,
  memoryFolder,
  memoryPrompt,
  reachingTool,
  withMemoryFolder,
} from './job-memory.js';
import { type JobServerSettings, startJobServers } from './job-servers.js';
import { agentFileCommands } from './repository-commands.js';
import { hasScopedFields } from './scoped-fields.js';

/** What the session lends the jobs whose definitions have servers, hooks or memory (session/job-parts.ts). */
export interface JobScope {
  memory: MemoryPlaces;
  servers: JobServerSettings;
  /** The tools of one of the session's MCP servers, by its name; undefined when it has none of that name. */
  sessionServerTools: (name: string) => readonly string[] | undefined;
  /** The session's hooks' runner over another table (the agent file's). */
  hookDispatcher: (table: HookTable) => HookDispatcher;
  /** A job's transcript, for its SubagentStop hooks. */
  transcriptPath: (jobId: string) => string;
  /** Why a definition's own commands (its inline MCP servers, its hooks) may not run; undefined when they may. */
  commandsRefused: (definition: AgentDefinition, what: 'servers' | 'hooks' | 'memory') => string | undefined;
  /** Resolves once the session's own MCP servers are up or failed (a file naming one waits for it). */
  sessionServersReady?: () => Promise<void>;
  /** Tells the user (a session notice). */
  warn?: (text: string) => void;
}

/**
 * The child runner, with what a typed job's definition brings for that job alone: its memory
 * folder (in its prompt and its file tools), its own MCP servers (started as its run starts,
 * stopped as it ends), its hooks (beside the session's, for its own calls), the session's
 * servers it names. A fork is the parent's conversation, prefix and tools: it takes none of them.
 * What could not be set up is told to the user, and to the job in its task.
 */
export function scopedChildRunner({ jobScope: scope, ...deps }: ChildRunDeps & { jobScope?: JobScope }): ChildRunner {
  const plain = createChildRunner(deps);
  if (!scope) return plain;
  return async (request) => {
    const definition = deps.definitions().get(request.definition);
    if (!definition || request.mode === 'fork' || !hasScopedFields(definition)) return plain(request);
    const workspace = request.workspace ?? deps.workspace;
    const notes: string[] = [];

    const folder = jobMemory(definition, workspace, scope, notes);
    const hooks = jobHooks(definition, scope, request, notes);
    const refused = agentFileCommands(definition)?.mcpServers ? scope.commandsRefused(definition, 'servers') : undefined;
    const servers = await startJobServers(definition, {
      settings: scope.servers,
      sessionServerTools: scope.sessionServerTools,
      ...(scope.sessionServersReady ? { sessionServersReady: scope.sessionServersReady } : {}),
      ...(refused !== undefined ? { refused } : {}),
      signal: request.signal,
    });
    notes.push(...servers.notes);
    try {
      for (const note of notes) scope.warn?.(`${request.id}: ${note}`);
      const tools = jobTools(deps.parentTools, definition, { servers: servers.tools, named: servers.named, memory: folder });
      const run = createChildRunner({
        ...deps,
        definitions: () => new Map([[definition.name, tools.definition]]),
        parentTools: tools.registry,
        sharedContext: [deps.sharedContext, folder && memoryPrompt(definition.name, folder)].filter(Boolean).join('\n\n'),
        hooks: {
          ...deps.hooks,
          loopFor: (agent) => combinedHooks(deps.hooks?.loopFor(agent), hooks) ?? {},
        },
        ...(deps.gateFor
          ? { gateFor: (id, def, where: Workspace) => deps.gateFor!(id, def, withMemoryFolder(where, folder)) }
          : {}),
      });
      return await run(notes.length ? withNotes(request, notes) : request);
    } finally {
      await servers.close();
    }
  };
}

/** The job's memory folder, when it has one it may keep. */
function jobMemory(
  definition: AgentDefinition,
  workspace: Workspace,
  scope: JobScope,
  notes: string[],
): MemoryFolder | undefined {
  if (!definition.memory) return undefined;
  // The user's folder is read by that agent in every project: a repository's file needs trust to write it.
  const refused = definition.memory === 'user' ? scope.commandsRefused(definition, 'memory') : undefined;
  if (refused !== undefined) {
    notes.push(`memory: user (a folder in your home) of ${definition.name}'s definition: ${refused}; this job keeps none`);
    return undefined;
  }
  const folder = memoryFolder(definition, workspace, scope.memory);
  if ('error' in folder) {
    notes.push(`memory: ${folder.error}; this job keeps none`);
    return undefined;
  }
  return folder;
}

/** The agent file's hooks for this job, when they may run. */
function jobHooks(
  definition: AgentDefinition,
  scope: JobScope,
  request: ChildRunRequest,
  notes: string[],
): LoopHooks | undefined {
  if (!definition.hooks) return undefined;
  const refused = scope.commandsRefused(definition, 'hooks');
  if (refused !== undefined) {
    notes.push(`the hooks of ${definition.name}'s definition do not run: ${refused}`);
    return undefined;
  }
  const compiled = compileHooks(definition.hooks);
  notes.push(...compiled.warnings.map((warning) => `${definition.name}'s definition: ${warning}`));
  const agent = { id: request.id, type: definition.name, transcriptPath: scope.transcriptPath(request.id) };
  return loopHooks(scope.hookDispatcher(compiled.table), agent);
}

/**
 * The parent's tools as this job sees them, and its definition listing what it is given: its
 * servers' tools (taking the place of a session tool of the same name), the session servers'
 * it names, and for its memory the file tools it lacks, reaching that folder alone.
 */
function jobTools(
  parent: ToolRegistry,
  definition: AgentDefinition,
  extra: { servers: AnyTool[]; named: string[]; memory: MemoryFolder | undefined },
): { registry: ToolRegistry; definition: AgentDefinition } {
  const own = new Set(extra.servers.map((tool) => tool.name));
  const given = new Set(childTools(parent, definition).names());
  const added = [...extra.servers.map((tool) => tool.name), ...extra.named];
  const replaced = new Map<string, AnyTool>();
  const folder = extra.memory;
  if (folder) {
    for (const name of MEMORY_FILE_TOOLS) {
      const tool = parent.get(name);
      if (!tool || given.has(name)) continue;
      replaced.set(name, confinedTool(tool, folder.dir));
      added.push(name);
    }
    // Outside the workspace, the file tools the job has reach its folder too (and nothing else more).
    if (folder.outside) {
      for (const name of given) {
        const tool = parent.get(name);
        if (tool?.paths && !replaced.has(name)) replaced.set(name, reachingTool(tool, folder.dir));
      }
    }
  }
  const tools = [
    ...parent
      .all()
      .filter((tool) => !own.has(tool.name))
      .map((tool) => replaced.get(tool.name) ?? tool),
    ...extra.servers,
  ];
  if (added.length === 0) return { registry: new ToolRegistry(tools), definition };
  // Without a list the job has the read-only set and the session's read-only MCP tools: written out, then added to.
  const base = definition.tools ?? [
    ...DEFAULT_READ_ONLY_TOOLS,
    ...parent
      .all()
      .filter((t) => t.name.startsWith('mcp__') && t.kind === 'read-only')
      .map((t) => t.name),
  ];
  return { registry: new ToolRegistry(tools), definition: { ...definition, tools: [...new Set([...base, ...added])] } };
}

/** The job's task with what could not be set up, so it knows what it lacks and why. */
function withNotes(request: ChildRunRequest, notes: string[]): ChildRunRequest {
  const said = `Not available to you in this job:\n${notes.map((note) => `- ${note}`).join('\n')}`;
  if (request.resume) return request;
  return { ...request, instructions: [request.instructions?.trim(), said].filter(Boolean).join('\n\n') };
}

/**
 * A job sent to a worker: its skills travel in its prompt, but its MCP servers, hooks and memory
 * stay here (a worker runs only what its own settings allow, and has no folder of the user's).
 * The user is told, and so is the job.
 */
export function forWorker(
  request: ChildRunRequest,
  definition: AgentDefinition | undefined,
  warn: ((text: string) => void) | undefined,
): ChildRunRequest {
  // A job attached to again (--continue) was sent, and told, before.
  if (!definition || request.mode === 'fork' || request.attach || !hasScopedFields(definition)) return request;
  const fields = [
    definition.mcpServers?.length ? 'mcpServers' : undefined,
    definition.hooks ? 'hooks' : undefined,
    definition.memory ? 'memory' : undefined,
  ].filter((field) => field !== undefined);
  const note = `${fields.join(', ')} of ${definition.name}'s definition: not carried to a queue worker (run the job with where: "local" to have them)`;
  warn?.(`${request.id}: ${note}`);
  return withNotes(request, [note]);
}
