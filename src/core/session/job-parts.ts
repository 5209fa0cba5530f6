import { commandsReviewed } from '../agents/repository-commands.js';
import type { ChildHooks } from '../agents/child-run.js';
import type { JobScope } from '../agents/scoped-run.js';
import { outriderPaths } from '../config/paths.js';
import { type SettingsReview, whyIgnored } from '../config/review-settings.js';
import type { Settings } from '../config/settings.js';
import type { HookDispatcher } from '../hooks/dispatcher.js';
import { loopHooks, subagentStartHooks } from '../hooks/hook-points.js';
import type { SessionMcp } from '../mcp/session-mcp.js';
import type { EventStream } from './event-stream.js';
import type { SessionSetup } from './opened-session.js';
import { type SessionPaths, agentTranscriptPath } from './store.js';

// Read by openSession with these parts: the agent files' commands the trust review covers, and
// the skills a definition preloads.
export { preloadSkills } from '../agents/preload-skills.js';
export { repositoryAgentCommands } from '../agents/repository-commands.js';

/**
 * What the session's sub-agent jobs take of it besides the model: the user's hooks (each
 * job's calls, SubagentStart, SubagentStop), and what an agent file's `mcpServers`, `hooks`
 * and `memory` need (agents/scoped-run.ts). A repository's agent file runs its own commands
 * only under the rule `.mcp.json` has: the folder trusted for exactly what it holds.
 */
export function jobParts(
  setup: Pick<SessionSetup, 'cwd' | 'env' | 'trustProject' | 'strictMcpConfig'>,
  parts: {
    review: SettingsReview;
    settings: Settings;
    hooks: HookDispatcher;
    paths: SessionPaths;
    events: EventStream;
    /** outrider's home (OUTRIDER_HOME or ~/.outrider). */
    home: string;
    /** The session's MCP servers, once started (a job starts after the session opened). */
    mcp: () => SessionMcp | undefined;
  },
): { hooks: ChildHooks; jobScope: JobScope } {
  const { review, settings, hooks, paths } = parts;
  const transcriptPath = (jobId: string) => agentTranscriptPath(paths, jobId);
  return {
    hooks: {
      loopFor: (agent) => loopHooks(hooks, { ...agent, transcriptPath: transcriptPath(agent.id) }),
      onStart: (agent, signal, emit) => subagentStartHooks(hooks, agent, signal, emit),
    },
    jobScope: {
      memory: { outriderHome: parts.home, home: setup.env.HOME || undefined },
      servers: {
        env: setup.env,
        cwd: setup.cwd,
        startupTimeoutMs: settings.mcp?.startupTimeoutMs,
        toolTimeoutMs: settings.mcp?.toolTimeoutMs,
        trustReadOnlyHints: settings.permissions?.mcpReadOnlyHints,
        authDir: outriderPaths(setup.env).mcpAuthDir,
      },
      sessionServerTools: (name) =>
        parts
          .mcp()
          ?.statuses()
          .find((status) => status.name === name)?.tools,
      sessionServersReady: () => parts.mcp()?.ready() ?? Promise.resolve(),
      hookDispatcher: (table) => hooks.withTable(table),
      transcriptPath,
      commandsRefused: (definition, what) => {
        if (what === 'servers' && setup.strictMcpConfig) return '--strict-mcp-config starts only the servers of --mcp-config';
        if (!definition.fromRepository || setup.trustProject === true) return undefined;
        if (review.stored !== 'trusted') return `the file is the repository's and ${whyIgnored(review)}`;
        if (commandsReviewed(definition, { cwd: setup.cwd, reviewed: review.agentCommands })) return undefined;
        return "the file is the repository's and changed after this folder was trusted; start outrider here again to review it, or pass --trust";
      },
      warn: (text) => parts.events.publish({ type: 'notice', level: 'warn', text }),
    },
  };
}
