import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { childGate } from '../agents/child-gate.js';
import { SessionLedger } from '../agents/ledger.js';
import { definitionsFromFlag } from '../agents/cli-agents.js';
import { loadDefinitions } from '../agents/definitions.js';
import { type SessionAgents, createSessionAgents } from '../agents/session-agents.js';
import { WorktreeJobs } from '../agents/worktree-jobs.js';
import { type Job, type JobEvent, isEnded } from '../agents/job-manager.js';
import { outriderPaths, projectPaths } from '../config/paths.js';
import { resolveProviderConfig } from '../config/provider-config.js';
import { readMcpConfigArgs } from '../config/mcp-files.js';
import { type SettingsReview, reviewSettings, settingsFromReview } from '../config/review-settings.js';
import type { Settings } from '../config/settings.js';
import type { Limits } from '../loop/limits.js';
import { type SessionMcp, failureWarnings, mcpServerSpecs, startSessionMcp } from '../mcp/session-mcp.js';
import type { McpServerStatus } from '../mcp/types.js';
import { ApprovalGate } from '../permissions/approvals.js';
import { toolGate } from '../permissions/tool-gate.js';
import type { Approver, PermissionMode } from '../permissions/types.js';
import { createProvider } from '../providers/create.js';
import type { Message, StreamFn, Usage } from '../providers/types.js';
import { sandboxConfigFrom, sandboxWarnings } from '../sandbox/config.js';
import type { SandboxProbe } from '../sandbox/plan.js';
import { probeSandbox } from '../sandbox/probe.js';
import { builtinTools } from '../tools/builtin.js';
import { makeWorkspace } from '../tools/paths.js';
import { readResultTool } from '../tools/read-result.js';
import { ToolRegistry } from '../tools/registry.js';
import { ResultStore } from '../tools/result-store.js';
import { oneLine } from '../text.js';
import { createCompactor } from './compactor.js';
import { type StoredJob, jobEndRecord, nextJobNumber, readStoredJobs } from './job-store.js';
import { scrubSecrets, scrubbingLimiter, sessionSecrets } from './secrets.js';
import { EventStream, type SessionEvent } from './event-stream.js';
import { costOf, modelInfo } from './models.js';
import { Session } from './session.js';
import {
  type SessionPaths,
  SessionLookupError,
  agentTranscriptPath,
  createSessionFolder,
  findSession,
  newSessionId,
  newestEmptyTranscript,
  newestSessionFor,
} from './store.js';
import { repairHistory } from './repair-history.js';
import { type InstructionFileInfo, loadInstructionFiles } from './instruction-files.js';
import { buildSystemPrompt, childContextPrompt, environmentFacts } from './system-prompt.js';
import { TranscriptWriter, readTranscript } from './transcript.js';

/** What a front end asks for; every field maps to a flag or is injected by tests. */
export interface SessionSetup {
  cwd: string;
  env: NodeJS.ProcessEnv;
  headless: boolean;
  /** Flags: the top layer of settings. */
  flags: Settings & { continue?: boolean; resume?: string };
  /** The settings files as read and reviewed before start (the TUI asked about them); read here when absent. */
  review?: SettingsReview;
  /** `--trust`: the project's guarded settings apply for this run, whatever the user answered before. */
  trustProject?: boolean;
  /** `--mcp-config` values: files (or JSON text) of `{ "mcpServers": … }`, the user's word. */
  mcpConfig?: string[];
  approver?: Approver;
  /** `--agents '<json>'`: agents for this run, in Claude Code's format; they override files of the same name. */
  agentsJson?: string;
  /** Replaces the provider (tests pass a fake stream). */
  stream?: StreamFn;
  /** Whether bubblewrap works, when already found out (--debug probes first; tests); else probed here, once. */
  sandboxProbe?: SandboxProbe;
}

/** A ready session and the machinery around it. */
export interface OpenedSession {
  session: Session;
  provider: string;
  model: string;
  paths: SessionPaths;
  gate: ApprovalGate;
  agents: SessionAgents;
  /** Start a turn by itself when a sub-agent completes while idle (setting `wakeOnComplete`). */
  wakeOnComplete: boolean;
  /** Things the user should know (a resumed transcript with a cut line, bad agent files). */
  warnings: string[];
  /** The one ordered stream of turn and job events (`session.events`); front ends read only this. */
  events: EventStream;
  /** Headless: waits for running jobs; true when a notice is owed to the model. */
  waitForAgents(signal: AbortSignal): Promise<boolean>;
  /** Compacts the history now (`/compact`); the event is published to the stream too. */
  compact(signal: AbortSignal): Promise<SessionEvent | undefined>;
  totals(): Usage;
  /** Cost of the whole session, sub-agents included; undefined when the model's price is unknown. */
  cost(): number | undefined;
  /** Cost of some usage at this session's model prices (settings' overrides included). */
  costOf(usage: Usage): number | undefined;
  /** Every job of this run, oldest first. */
  jobs(): Job[];
  /** The jobs of the session's earlier runs (a resumed session), read from their transcripts. */
  storedJobs: StoredJob[];
  /** The instruction files in the system prompt (AGENTS.md, CLAUDE.md, imports), with sizes and notes: `/memory`. */
  instructionFiles: InstructionFileInfo[];
  /** The MCP servers now; `ready` resolves when each is up or has failed. Their changes are on `events` too. */
  mcp: { statuses(): McpServerStatus[]; ready(): Promise<void> };
  /** Stops the sub-agents, then closes every MCP server. */
  close(): Promise<void>;
}

const DEFAULT_MAX_TOKENS = 8192;
/** Model calls per prompt in headless mode when no limit is set. */
export const HEADLESS_MAX_TURNS = 100;

/** Reads the settings files for this setup, and what the user said about trusting its folder. */
export function reviewSetup(setup: Pick<SessionSetup, 'cwd' | 'env' | 'flags'>): SettingsReview {
  const { continue: _continue, resume: _resume, ...flags } = setup.flags;
  return reviewSettings({ cwd: setup.cwd, env: setup.env, flags });
}

/** Builds a session from flags, settings and environment: the composition root of the core. */
export async function openSession(setup: SessionSetup): Promise<OpenedSession> {
  const home = outriderPaths(setup.env);
  const project = projectPaths(setup.cwd);
  const { continue: continueNewest, resume } = setup.flags;
  // The project file's guarded keys (mode, dirs, provider, URL) apply only in a trusted folder.
  const review = setup.review ?? reviewSetup(setup);
  const { settings, warning, mcpJson } = settingsFromReview(review, { trusted: setup.trustProject });
  const providerConfig = resolveProviderConfig({ flags: {}, settings, env: setup.env });
  const warnings: string[] = [...(warning ? [warning] : []), ...(mcpJson.warning ? [mcpJson.warning] : [])];
  const mcpSpecs = mcpServerSpecs([
    { source: 'settings', servers: settings.mcpServers },
    { source: '.mcp.json', servers: mcpJson.servers },
    { source: '--mcp-config', servers: setup.mcpConfig?.length ? readMcpConfigArgs(setup.mcpConfig, setup.cwd) : undefined },
  ]);

  // Resume first: a resumed session keeps its id, history and exact system prompt.
  const resumed = resume || continueNewest ? resumeFrom(home.sessionsDir, setup.cwd, resume) : undefined;
  const id = resumed?.id ?? newSessionId();
  const paths = createSessionFolder(home.sessionsDir, id);
  if (resumed) warnings.push(...resumed.warnings);

  const info = modelInfo(providerConfig.model, settings.models);
  const workspace = makeWorkspace(setup.cwd, settings.addDirs ?? []);
  // The sandbox as the trust-resolved settings have it: a project file loosens it only in a trusted folder.
  const sandbox = {
    config: sandboxConfigFrom({ user: settings, flags: review.flags }),
    probe: setup.sandboxProbe ?? (await probeSandbox({ workspace })),
  };
  warnings.push(...sandboxWarnings(sandbox.config, sandbox.probe));
  const stream =
    setup.stream ??
    createProvider({
      provider: providerConfig.provider,
      apiKey: providerConfig.apiKey,
      baseURL: providerConfig.baseURL,
      maxRetries: providerConfig.maxRetries,
      toolMode: providerConfig.toolMode,
      firstByteTimeoutMs: settings.firstByteTimeoutMs,
      idleTimeoutMs: settings.idleTimeoutMs,
    });
  const maxTokens = Math.min(settings.maxTokens ?? DEFAULT_MAX_TOKENS, info.maxOutput);
  const results = new ResultStore();
  // The key never reaches a command, and is scrubbed from what any tool returns (parent and sub-agents).
  const secrets = sessionSecrets(setup.env, providerConfig.apiKey);
  const scrub = (text: string) => scrubSecrets(text, secrets, setup.env);
  const limitOutput = scrubbingLimiter(results.limiter(), scrub);
  const baseTools = new ToolRegistry([...builtinTools({ bash: { sandbox, secrets, scrub } }), readResultTool(results)]);
  const gate = new ApprovalGate({
    mode: permissionMode(settings),
    approver: setup.approver,
    headless: setup.headless,
    allow: settings.permissions?.allow,
  });
  const ledger = new SessionLedger();

  const events = new EventStream();
  const childTranscripts = new Map<string, TranscriptWriter>();
  const broadcast = (event: JobEvent) => {
    // The job's end goes into its transcript, so it can be listed after a resume.
    if (event.type === 'job_state' && isEnded(event.job.state)) {
      childTranscripts.get(event.job.id)?.event('job_end', jobEndRecord(event.job));
      childTranscripts.delete(event.job.id);
    }
    events.publish(event);
  };
  const { definitions, warnings: definitionWarnings } = loadDefinitions({
    userDir: home.userAgentsDir,
    projectDir: project.agentsDir,
    // Claude Code's own agent folders, the user's then the project's, so existing agents work unchanged.
    claudeDirs: [...(setup.env.HOME ? [path.join(setup.env.HOME, '.claude', 'agents')] : []), project.claudeAgentsDir],
    projectRoot: setup.cwd,
  });
  warnings.push(...definitionWarnings);
  if (setup.agentsJson !== undefined) {
    const fromFlag = definitionsFromFlag(setup.agentsJson);
    for (const definition of fromFlag.definitions) definitions.set(definition.name, definition);
    warnings.push(...fromFlag.warnings);
  }

  // Set once the session exists: the fork snapshot reads it, and no fork can start before then.
  // Read once: the parent's prompt is built from them (byte-stable for the session; a resumed one
  // keeps its stored prompt), and typed children get the same facts and instructions.
  const facts = environmentFacts(setup.cwd);
  const loaded = loadInstructionFiles({ cwd: setup.cwd, outriderHome: home.home, home: setup.env.HOME || undefined });
  const instructions = resumed?.system ? { files: loaded.files, info: resumed.instructionFiles, warnings: [] } : loaded;
  warnings.push(...instructions.warnings);
  let session: Session | undefined = undefined;
  const agents = createSessionAgents({
    definitions,
    parentTools: baseTools,
    stream,
    model: providerConfig.model,
    maxTokens,
    workspace,
    config: { ...settings.agents },
    ledger,
    emit: broadcast,
    // An isolated job's calls are judged against its worktree: the checkout is outside it.
    gateFor: (jobId, definition, where = workspace) =>
      childGate({ session: gate, workspace: where, jobId, definition, approver: setup.approver, headless: setup.headless }),
    worktrees: new WorktreeJobs({ cwd: setup.cwd, stateDir: path.join(paths.dir, 'worktrees'), sessionId: id }),
    limitOutput,
    transcriptFor: (jobId, definition, task) => {
      mkdirSync(paths.agentsDir, { recursive: true, mode: 0o700 });
      const writer = new TranscriptWriter(
        agentTranscriptPath(paths, jobId),
        {
          sessionId: `${id}/${jobId}`,
          cwd: setup.cwd,
          provider: providerConfig.provider,
          model: providerConfig.model,
          parentSessionId: id,
          jobId,
          definition: definition.name,
          task,
        },
        {
          onError: (error) =>
            events.publish({ type: 'notice', level: 'warn', text: `could not write ${jobId}'s transcript: ${error.message}` }),
          env: setup.env,
        },
      );
      childTranscripts.set(jobId, writer);
      return writer;
    },
    firstJobNumber: resumed?.firstJobNumber,
    costOf: (usage) => costOf(usage, info),
    sharedContext: childContextPrompt(facts, loaded.files),
    forkSnapshot: () => {
      if (!session) throw new Error('the session is not ready yet');
      return { system: session.system, schemas: session.tools.schemas(), messages: [...session.messages()] };
    },
  });
  // Jobs of the session's earlier runs can be messaged and resumed (agent_send) as if they never left.
  if (resumed) agents.manager.restore(resumed.storedJobs);
  const coreTools = [...baseTools.all(), ...agents.tools];

  const system = resumed?.system ?? buildSystemPrompt(facts, instructions.files);
  const transcript = new TranscriptWriter(
    paths.transcript,
    { sessionId: id, cwd: setup.cwd, provider: providerConfig.provider, model: providerConfig.model },
    { env: setup.env },
  );
  if (!resumed) transcript.event('system_prompt', { system, instructionFiles: instructions.info });

  // MCP servers start now (the last step that could fail is behind us), all at once. The TUI opens meanwhile and their tools join between
  // turns; nobody is waiting on a headless run, so it starts its turn with them up (or failed).
  const mcp: SessionMcp | undefined = mcpSpecs.length
    ? startSessionMcp({ specs: mcpSpecs, settings, env: setup.env, cwd: setup.cwd, events, childPool: baseTools })
    : undefined;
  if (mcp && setup.headless) {
    await mcp.ready();
    warnings.push(...failureWarnings(mcp.statuses()));
  }
  const tools = mcp?.toolsForTurn(coreTools) ?? new ToolRegistry(coreTools);

  // Nobody watches a headless run: it gets a turn cap unless one is set (--max-turns raises it).
  const limits: Limits = { maxTurns: settings.maxTurns ?? (setup.headless ? HEADLESS_MAX_TURNS : undefined) };
  session = new Session({
    id,
    workspace,
    system,
    tools,
    stream,
    model: providerConfig.model,
    maxTokens,
    limits,
    gate: toolGate(gate, workspace),
    limitOutput,
    history: resumed?.history,
    ledger,
    events,
  });
  const compactor = createCompactor({
    session,
    stream,
    model: providerConfig.model,
    maxTokens,
    contextWindow: info.contextWindow,
    transcript,
    jobState: () => describeJobs(agents.manager.list()),
  });
  session.addHooks({
    onMessage: (message: Message) => {
      transcript.append(message);
      agents.manager.confirm(message);
    },
    turnStartMessages: () => agents.boundaryMessages(),
    boundaryMessages: () => agents.boundaryMessages(),
    beforeToolBatch: (calls) => agents.manager.reserve(calls),
    onTurnEnd: (result) => {
      if (result.cause.kind === 'aborted') agents.manager.interrupted();
    },
    onContextTooLong: (history, signal) => compactor.compactForRetry(history, signal),
    beforeModelCall: (history, signal) => compactor.compactIfNeeded(history, signal),
    ...(mcp ? { toolsForTurn: () => mcp.toolsForTurn(coreTools) } : {}),
  });

  return {
    session,
    provider: providerConfig.provider,
    model: providerConfig.model,
    paths,
    gate,
    agents,
    warnings,
    wakeOnComplete: settings.wakeOnComplete ?? false,
    events,
    async waitForAgents(signal) {
      await agents.manager.idle(signal);
      return !signal.aborted && agents.manager.undelivered().length > 0;
    },
    async compact(signal) {
      const event = await compactor.compactNow(signal);
      events.publish(event);
      return event;
    },
    totals: () => ledger.totals(),
    cost: () => costOf(ledger.totals(), info),
    costOf: (usage) => costOf(usage, info),
    jobs: () => agents.manager.list(),
    storedJobs: resumed?.storedJobs ?? [],
    instructionFiles: instructions.info,
    mcp: { statuses: () => mcp?.statuses() ?? [], ready: () => mcp?.ready() ?? Promise.resolve() },
    close: async () => {
      await agents.manager.close();
      await mcp?.close();
    },
  };
}

function permissionMode(settings: Settings): PermissionMode {
  return settings.permissionMode ?? 'default';
}

/** One line per job for the compaction summary, so running jobs survive it. */
function describeJobs(jobs: Job[]): string | undefined {
  if (jobs.length === 0) return undefined;
  return jobs.map((job) => `- ${job.id} (${job.definition}, ${job.state}): ${oneLine(job.task, 80)}`).join('\n');
}

function resumeFrom(sessionsDir: string, cwd: string, resume: string | undefined) {
  const summary = resume ? findSession(sessionsDir, resume) : newestSessionFor(sessionsDir, cwd);
  if (!summary) {
    const empty = newestEmptyTranscript(sessionsDir);
    const why = empty ? `: the newest transcript, ${empty}, is empty, so the folder it belongs to is unknown` : '';
    throw new SessionLookupError(`no earlier session in ${cwd} to continue${why}; start a new one without --continue`);
  }
  const read = readTranscript(summary.paths.transcript);
  const systemEvent = read.events.find((e) => e.name === 'system_prompt');
  const stored = systemEvent?.data as { system?: string; instructionFiles?: InstructionFileInfo[] } | undefined;
  const system = stored?.system;
  // Sessions written before the list was stored show none.
  const instructionFiles = Array.isArray(stored?.instructionFiles) ? stored.instructionFiles : [];
  // Before the first request: the file may hold anything (a crash, a hand edit, another version).
  const { history, warnings: repairs } = repairHistory(read.history);
  const warnings = [...read.warnings, ...repairs];
  return {
    id: summary.id,
    history,
    warnings,
    system,
    instructionFiles,
    firstJobNumber: nextJobNumber(summary.paths),
    storedJobs: readStoredJobs(summary.paths),
  };
}
