/** How each key of a project's settings file is taken: free, guarded by the folder's trust, or a limit it may only lower. */
import { hooksWithin } from '../hooks/hook-settings.js';
import { canonicalJson } from '../platform/canonical-json.js';
import { AGENT_BOUNDS, type Limits, MCP_BOUNDS, MODEL_BOUNDS, NUMBER_BOUNDS } from './setting-limits.js';
import type { Settings } from './settings.js';

/**
 * How a key of a project's settings file is taken (`resolveSettings` in project-trust.ts applies it).
 * The user's own files and flags are the user's word; a project file comes with a cloned
 * repository, and may have been written by the model.
 */
export type TrustRule<V> =
  /** Taken from any project: it changes how the agent works, not what may run, where data goes, or how much is done. */
  | { kind: 'free' }
  /**
   * Taken only from a trusted folder, unless the project's value is `within` the user's own
   * (default: equal to it), so a project can always narrow. `why` is what the trust prompt says.
   */
  | {
      kind: 'guarded';
      why: string;
      within?: (project: NonNullable<V>, user: V | undefined) => boolean;
      /** The part of the project's value that only narrows (deny rules), taken even from an untrusted folder. */
      narrowing?: (project: NonNullable<V>) => NonNullable<V> | undefined;
    }
  /**
   * Numbers that bound how much the agent does, or what its cost counts (setting-limits.ts):
   * each number of the project's applies when it is as strict as the user's (default included),
   * the others only in a trusted folder, as guarded keys.
   */
  | { kind: 'limits'; limits: Limits };

/** A key whose value is limits laid out as `limits` says. */
const limits = (layout: Limits) => ({ kind: 'limits', limits: layout }) as const;

/** Permission modes from the strictest to the widest. */
const MODE_ORDER = ['plan', 'default', 'accept-edits', 'yolo'] as const;

/**
 * Every key's rule; a key without one does not compile. Anything that widens what runs or
 * where data goes is guarded: a key that starts a program (hooks, MCP servers), holds a key
 * or token, names a server, or loosens a sandbox must be `guarded` when it is added
 * (settings.test.ts checks names like these). A number is `limits` (setting-limits.test.ts
 * fails for a number a project could raise untrusted).
 */
export const SETTING_TRUST: { [K in keyof Settings]-?: TrustRule<Settings[K]> } = {
  provider: { kind: 'guarded', why: 'chooses which of your API keys is sent, and to which service' },
  model: { kind: 'free' },
  baseURL: { kind: 'guarded', why: 'sends your API key and your code to this server' },
  toolMode: { kind: 'free' },
  permissionMode: {
    kind: 'guarded',
    why: 'decides which tool calls run without asking you',
    within: (project, user) => MODE_ORDER.indexOf(project) <= MODE_ORDER.indexOf(user ?? 'default'),
  },
  // Retries and timeouts decide how many calls a turn makes and how long a stuck one holds it.
  maxRetries: limits({ number: NUMBER_BOUNDS.maxRetries }),
  firstByteTimeoutMs: limits({ number: NUMBER_BOUNDS.firstByteTimeoutMs }),
  idleTimeoutMs: limits({ number: NUMBER_BOUNDS.idleTimeoutMs }),
  callDeadlineMs: limits({ number: NUMBER_BOUNDS.callDeadlineMs }),
  rateLimitWaitMs: limits({ number: NUMBER_BOUNDS.rateLimitWaitMs }),
  maxTurns: limits({ number: NUMBER_BOUNDS.maxTurns }),
  maxTokens: limits({ number: NUMBER_BOUNDS.maxTokens }),
  // Thinking and reasoning tokens are billed as output: a project may ask for no more than you do.
  effort: {
    kind: 'guarded',
    why: 'sets how hard the model reasons (thinking tokens are billed as output)',
    within: (project, user) => user !== undefined && EFFORT_ORDER.indexOf(project) <= EFFORT_ORDER.indexOf(user),
  },
  // Which of the same server's APIs is called, with the same key.
  openai: { kind: 'free' },
  addDirs: {
    kind: 'guarded',
    why: 'lets the agent edit files outside this folder',
    within: (project, user) => project.every((dir) => (user ?? []).includes(dir)),
  },
  sandbox: {
    kind: 'guarded',
    why: 'chooses the OS sandbox for approved commands ("off" runs them unfenced)',
    within: (project, user) => SANDBOX_ORDER.indexOf(project) >= SANDBOX_ORDER.indexOf(user ?? 'off'),
  },
  sandboxNetwork: { kind: 'guarded', why: 'lets sandboxed commands reach the network', within: (project) => project === false },
  // On unless set false: a project may turn it off, but not back on against the user's false,
  // as each wake is a turn (model calls) nobody asked for.
  wakeOnComplete: {
    kind: 'guarded',
    why: 'starts a turn by itself whenever a sub-agent finishes, without you',
    within: (project, user) => project === false || user !== false,
  },
  // A bell or a desktop notification through the terminal: nothing runs, nothing leaves.
  notify: { kind: 'free' },
  // Whether a fetch happens at all is the user's approval; these bound one that does.
  webFetchMaxBytes: limits({ number: NUMBER_BOUNDS.webFetchMaxBytes }),
  webFetchTimeoutMs: limits({ number: NUMBER_BOUNDS.webFetchTimeoutMs }),
  // Windows and output caps are limits; prices decide what the cost budgets count.
  models: limits({ modelEntries: MODEL_BOUNDS }),
  // Like `model`: which of the provider's models a sub-agent runs on.
  modelAliases: { kind: 'free' },
  agents: limits({ entries: AGENT_BOUNDS }),
  mcpServers: {
    kind: 'guarded',
    why: 'starts these programs (MCP servers) with your environment, or connects to these servers',
    within: (project, user) =>
      Object.entries(project).every(
        ([name, entry]) => user?.[name] !== undefined && canonicalJson(user[name]) === canonicalJson(entry),
      ),
  },
  mcp: limits({ entries: MCP_BOUNDS }),
  // Allow rules widen what runs unasked; ask and deny rules only narrow, so they apply from any
  // folder, trusted or not (a repository may always ask for more care, as Claude Code lets it).
  permissions: {
    kind: 'guarded',
    why: 'lets these tools run without asking you',
    within: (project, user) =>
      (project.allow ?? []).every((pattern) => (user?.allow ?? []).includes(pattern)) &&
      (project.mcpReadOnlyHints !== true || user?.mcpReadOnlyHints === true),
    narrowing: (project) => {
      const part = { ...(project.ask ? { ask: project.ask } : {}), ...(project.deny ? { deny: project.deny } : {}) };
      return Object.keys(part).length ? part : undefined;
    },
  },
  hooks: {
    kind: 'guarded',
    why: 'runs these commands on your machine at agent events (hooks)',
    within: (project, user) => hooksWithin(project, user),
  },
  // Commands, as hooks are: a project's runs only in a trusted folder, unless it is the user's own.
  statusLine: { kind: 'guarded', why: 'runs this command on your machine whenever the session changes (status line)' },
  subagentStatusLine: { kind: 'guarded', why: "runs this command on your machine for each sub-agent's row (status line)" },
};

/** Efforts from the least to the most. */
const EFFORT_ORDER: readonly string[] = ['low', 'medium', 'high', 'max'];

/** Sandbox modes from the loosest to the strictest. */
const SANDBOX_ORDER: readonly string[] = ['off', 'workspace-write', 'read-only'];
