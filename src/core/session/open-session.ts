import { existsSync } from 'node:fs';
import path from 'node:path';
import { childGate } from '../agents/child-gate.js';
import { SessionLedger } from '../jobs/ledger.js';
import { definitionsFromFlag } from '../agents/cli-agents.js';
import { loadDefinitions } from '../agents/definitions.js';
import { definitionModelWarning } from '../agents/model-resolution.js';
import { createSessionAgents, jobAwareApprover, jobsParticipant } from '../agents/session-agents.js';
import { WorktreeJobs } from '../worktrees/worktree-jobs.js';
import { jobStateLines } from '../jobs/job-texts.js';
import { outriderPaths, projectPaths } from '../config/paths.js';
import { resolveProviderConfig } from '../config/provider-config.js';
import { type SettingsReview, reviewSettings, settingsFromReview } from '../config/review-settings.js';
import { hookLine } from '../hooks/hook-line.js';
import { userHooksParticipant } from '../hooks/hook-participant.js';
import { preCompactHooks, sessionEndHooks, sessionStartHooks } from '../hooks/hook-points.js';
import { Conversation } from '../loop/conversation.js';
import { mcpParticipant } from '../mcp/mcp-participant.js';
import type { Limits } from '../loop/limits.js';
import { type SessionMcp, failureWarnings, mcpFace, startSessionMcp } from '../mcp/session-mcp.js';
import { sessionMcpSpecs } from '../mcp/mcp-sources.js';
import { toolGate } from '../permissions/tool-gate.js';
import { gatedDirectiveRunner } from '../commands/body-directives.js';
import { sessionPromptImages } from '../commands/prompt-images.js';
import { commandSummaries, loadSessionCommands } from '../commands/session-commands.js';
import { skillTool } from '../commands/skills.js';
import { makeWorkspace } from '../platform/paths.js';
import { mergeCheckFor } from '../worktrees/merge-check.js';
import { ForegroundCalls, type ShellHost } from '../tools/shell-host.js';
import { ToolRegistry } from '../tools/registry.js';
import { ResultStore } from '../tools/result-store.js';
import { todoWriteTool } from '../tools/todo-write.js';
import { compactionParticipant, createCompactor } from './compactor.js';
import { JobRecords } from './job-records.js';
import { scrubSecrets, scrubbingLimiter, sessionSecrets } from './secrets.js';
import { EventStream } from './event-stream.js';
import { modelInfo } from '../providers/models.js';
import { type ModelFace, followModel, modelFace, openParentModel } from './parent-model.js';
import { Session } from './session.js';
import { sessionGate } from './session-gate.js';
import { sessionQueue, sessionSandbox, sessionStream, sessionTools } from './session-parts.js';
import { SessionLookupError, createSessionFolder, newSessionId, sessionPaths } from './store.js';
import { jobParts, preloadSkills, repositoryAgentCommands } from './job-parts.js';
import { loadInstructionFiles } from './instruction-files.js';
import { buildSystemPrompt, childContextPrompt, environmentFacts, withAppended } from './system-prompt.js';
import type { OpenedSession, SessionSetup } from './opened-session.js';
import { promptSubmitter } from './prompt-submission.js';
import { loadResumedSession } from './resume.js';
import { TranscriptWriter, transcriptParticipant } from './transcript.js';
import { readTurnEnds, recordTurnEnds } from './turn-ends.js';

/** Model calls per prompt in headless mode when no limit is set. */
export const HEADLESS_MAX_TURNS = 100;

/** Reads the settings files for this setup, and what the user said about trusting its folder. */
export function reviewSetup(
  setup: Pick<SessionSetup, 'cwd' | 'env' | 'flags' | 'settingSources' | 'settingsArg'>,
): SettingsReview {
  const { continue: _continue, resume: _resume, ...flags } = setup.flags;
  return reviewSettings({
    cwd: setup.cwd,
    env: setup.env,
    flags,
    ...(setup.settingSources ? { sources: setup.settingSources } : {}),
    ...(setup.settingsArg !== undefined ? { settingsArg: setup.settingsArg } : {}),
    agentCommands: repositoryAgentCommands(setup.cwd),
  });
}

/** Builds a session from flags, settings and environment: the composition root of the core. */
export async function openSession(setup: SessionSetup): Promise<OpenedSession> {
  const home = outriderPaths(setup.env);
  const project = projectPaths(setup.cwd);
  const { continue: continueNewest, resume } = setup.flags;
  // The project file's guarded keys (mode, dirs, provider, URL) apply only in a trusted folder.
  const review = setup.review ?? reviewSetup(setup);
  const { settings, warning, notes, mcpJson } = settingsFromReview(review, { trusted: setup.trustProject });
  const providerConfig = resolveProviderConfig({ flags: {}, settings, env: setup.env });
  const warnings: string[] = [...(warning ? [warning] : []), ...(mcpJson.warning ? [mcpJson.warning] : []), ...notes];
  if (providerConfig.modelWarning) warnings.push(providerConfig.modelWarning);
  // ~/.claude.json, settings, .mcp.json, --mcp-config (`outrider mcp list` reads the same).
  const { specs: mcpSpecs, warnings: mcpWarnings } = sessionMcpSpecs({
    ...setup,
    settingsServers: settings.mcpServers,
    mcpJsonServers: mcpJson.servers,
  });
  warnings.push(...mcpWarnings);

  // Resume first: a resumed session keeps its id, history and exact system prompt.
  const resumed = resume || continueNewest ? await loadResumedSession(home.sessionsDir, setup.cwd, resume, setup.env) : undefined;
  if (setup.sessionId && !resumed && existsSync(sessionPaths(home.sessionsDir, setup.sessionId).transcript)) {
    throw new SessionLookupError(
      `session id ${setup.sessionId} is already in use: resume it with --resume ${setup.sessionId}, or give another id`,
    );
  }
  const id = resumed?.id ?? setup.sessionId ?? newSessionId();
  const paths = createSessionFolder(home.sessionsDir, id);
  if (resumed) warnings.push(...resumed.warnings);

  const workspace = makeWorkspace(setup.cwd, settings.addDirs ?? []);
  const events = new EventStream();
  // Ends what outlives a turn: the sandbox probe, Notification hooks started while asking, SessionStart hooks on a slow start.
  const lifetime = new AbortController();
  const { sandboxConfig, sandbox } = sessionSandbox({
    settings,
    flags: review.flags,
    known: setup.sandboxProbe,
    workspace,
    events,
    warnings,
    signal: lifetime.signal,
  });
  const stream = sessionStream(setup, { providerConfig, settings, events });
  // The parent's model and effort, which /model switches; a resumed session's last, unless this run's flags name them.
  const explicit = { model: Boolean(setup.flags.model?.trim()), effort: setup.flags.effort !== undefined };
  const parent = openParentModel(providerConfig, settings, resumed && { recorded: resumed.model, explicit });
  warnings.push(...parent.warnings);
  const parentModel = parent.model;
  const { maxTokens } = parentModel.current();
  const results = new ResultStore();
  // The key never reaches a command, and is scrubbed from what any tool returns (parent and sub-agents).
  const secrets = sessionSecrets(setup.env, providerConfig.apiKey);
  const scrub = (text: string) => scrubSecrets(text, secrets);
  const limitOutput = scrubbingLimiter(results.limiter(), scrub);
  // Background shells live in the job manager, made below; nothing runs before it exists.
  const foreground = new ForegroundCalls();
  // --max-agents 0: no agent tools, so no background shells either (nothing could poll or stop them).
  const offerAgents = settings.agents?.maxConcurrent !== 0;
  const adopt: ShellHost['adopt'] = (handle, start) => agents.manager.adoptShell(handle, start).id;
  const { tools: baseTools, checkpoints } = sessionTools(setup, {
    settings,
    sandbox,
    secrets,
    scrub,
    results,
    shells: offerAgents ? { adopt, foreground } : undefined,
    checkpoints: { paths, workspace, events },
  });
  // A sub-agent waiting for the user's answer is not stalled (jobs/stall-watch.ts).
  const asker = jobAwareApprover(setup.approver, () => agents.manager);
  const { hooks, approver, gate, statusLine } = sessionGate(asker ? { ...setup, approver: asker } : setup, {
    settings,
    id,
    paths,
    workspace,
    secrets,
    scrub,
    events,
    warnings,
    signal: lifetime.signal,
  });
  const ledger = new SessionLedger();

  const jobRecords = new JobRecords({
    paths,
    session: { id, cwd: setup.cwd, provider: providerConfig.provider, model: providerConfig.model },
    env: setup.env,
    scrub,
    warn: (text) => events.publish({ type: 'notice', level: 'warn', text }),
    events,
  });
  const notice = (text: string) => events.publish({ type: 'notice', level: 'warn', text });
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
  // Definitions whose model this provider cannot serve run on the session's: said once, at start.
  const modelWarning = definitionModelWarning([...definitions.values()], {
    provider: providerConfig.provider,
    parentModel: providerConfig.model,
    aliases: settings.modelAliases,
  });
  if (modelWarning) warnings.push(modelWarning);

  // Read once: the parent's prompt is built from them (byte-stable for the session; a resumed one
  // keeps its stored prompt), and typed children get the same facts and instructions.
  const facts = environmentFacts(setup.cwd);
  const loaded = loadInstructionFiles({ cwd: setup.cwd, outriderHome: home.home, home: setup.env.HOME || undefined });
  const instructions = resumed?.system ? { files: loaded.files, info: resumed.instructionFiles, warnings: [] } : loaded;
  warnings.push(...instructions.warnings);
  // --system-prompt replaces the prompt, --append-system-prompt is added once; a resumed session keeps its own.
  const prompt = setup.systemPrompt ?? buildSystemPrompt(facts, instructions.files, { agents: offerAgents });
  const system = resumed?.system ?? withAppended(prompt, setup.appendSystemPrompt);
  // The parent's conversation, before its tools are complete: a fork snapshot reads it (no fork
  // can start before the first turn), and its tools are set once assembled, below.
  const conversation = new Conversation(
    { system, tools: new ToolRegistry([]), workspace, messages: [...(resumed?.history ?? [])] },
    {
      stream,
      model: parentModel.current().model,
      maxTokens,
      ...(parentModel.current().effort ? { effort: parentModel.current().effort } : {}),
      gate: toolGate(gate, workspace),
      limitOutput,
    },
  );
  const check = mergeCheckFor(settings.agents, { sandbox, secrets, scrub, rules: gate.rules });
  const worktrees = new WorktreeJobs({ cwd: setup.cwd, stateDir: path.join(paths.dir, 'worktrees'), sessionId: id, check });
  // --queue: sub-agent jobs go to workers; Redis and the git remote are checked now, not at the first job.
  const queue = await sessionQueue(setup, { settings, id, definitions, secrets, worktrees, jobRecords, events });
  const agents = createSessionAgents({
    definitions,
    parentTools: baseTools,
    stream,
    model: () => parentModel.current().model,
    // Each job's answer cap is the setting's, bounded by its own model's output cap.
    maxTokens: parent.settings.maxTokens,
    maxOutputOf: (model) => modelInfo(model, settings.models).maxOutput,
    // A job's definition's effort over this one (settings, --effort, /model).
    effort: () => parentModel.askedEffort(),
    workspace,
    config: { ...settings.agents },
    ledger,
    emit: jobRecords.publish,
    // Starting more sub-agents in one turn than agents.approve allows asks the user; headless, it is refused.
    fanOut: { mode: () => gate.mode, ...(approver && !setup.headless ? { ask: approver } : {}), warn: notice },
    // An isolated job's calls are judged against its worktree: the checkout is outside it.
    gateFor: (jobId, definition, where = workspace) =>
      childGate({ session: gate, workspace: where, jobId, definition, approver, headless: setup.headless }),
    ...(queue ? { queue } : {}),
    worktrees,
    limitOutput,
    transcriptFor: (jobId, definition, task) => jobRecords.transcriptFor(jobId, definition.name, task),
    firstJobNumber: resumed?.firstJobNumber,
    costOf: parent.priceOf,
    models: { provider: providerConfig.provider, aliases: settings.modelAliases },
    warn: notice,
    sharedContext: childContextPrompt(facts, loaded.files),
    ...jobParts(setup, { review, settings, hooks, paths, events, home: home.home, mcp: () => mcp }),
    forkSnapshot: () => ({
      system: conversation.context.system,
      schemas: conversation.context.tools.schemas(),
      messages: [...conversation.messages()],
    }),
  });
  // Jobs of the session's earlier runs can be messaged and resumed (agent_send) as if they never left.
  if (resumed) agents.manager.restore(resumed.storedJobs, { takenIds: resumed.takenJobIds });
  // todo_write is the parent's plan: not among the tools a sub-agent can be given.
  const todoWrite = todoWriteTool({ publish: (todos) => events.publish({ type: 'todos', todos }) });
  // Custom commands and skills: a project's allowed-tools apply only where its guarded settings would.
  const conventions = loadSessionCommands({
    cwd: setup.cwd,
    home: setup.env.HOME || undefined,
    outriderHome: home.home,
    projectTrusted: setup.trustProject === true || review.stored === 'trusted',
    knownTools: [...baseTools.names(), todoWrite.name],
  });
  warnings.push(...conventions.warnings, ...preloadSkills(definitions, conventions.skills));
  const skills = conventions.skills.size ? [skillTool(conventions.skills)] : [];
  const directives = gatedDirectiveRunner({
    gate: toolGate(gate, workspace),
    tools: baseTools,
    workspace,
    limitOutput,
    notify: (text) => events.publish({ type: 'notice', level: 'info', text }),
  });
  const notify = (text: string) => events.publish({ type: 'notice', level: 'warn', text });
  const coreTools = [...baseTools.all(), todoWrite, ...skills, ...agents.tools];

  const transcript = new TranscriptWriter(
    paths.transcript,
    { sessionId: id, cwd: setup.cwd, provider: providerConfig.provider, model: providerConfig.model },
    { env: setup.env },
  );
  if (!resumed) transcript.event('system_prompt', { system, instructionFiles: instructions.info });
  // A resumed session's cost goes on from where it stood, and its unfinished turns are drawn again.
  const earlier = resumed ? readTurnEnds(paths.transcript) : undefined;
  for (const spent of earlier?.parentUsage ?? []) ledger.addParent(spent.usage, spent.model ?? parentModel.current().model);
  for (const stored of resumed?.storedJobs ?? []) ledger.addJob(stored.job.id, stored.job.usage);
  recordTurnEnds(events, transcript, ledger);

  // MCP servers start now (the last step that could fail is behind us), all at once. The TUI opens meanwhile and their tools join between
  // turns; nobody is waiting on a headless run, so it starts its turn with them up (or failed).
  const mcp: SessionMcp | undefined = mcpSpecs.length
    ? startSessionMcp({
        specs: mcpSpecs,
        settings,
        env: setup.env,
        cwd: setup.cwd,
        publishState: (event, state) => events.publish(event, { state }),
        childPool: baseTools,
      })
    : undefined;
  if (mcp && setup.headless) {
    await mcp.ready();
    warnings.push(...failureWarnings(mcp.statuses()));
  }
  conversation.context.tools = mcp?.toolsForTurn(coreTools) ?? new ToolRegistry(coreTools);

  // Nobody watches a headless run: it gets a turn cap unless one is set (--max-turns raises it).
  const limits: Limits = { maxTurns: settings.maxTurns ?? (setup.headless ? HEADLESS_MAX_TURNS : undefined) };
  const compactor = createCompactor({
    conversation,
    ledger,
    stream,
    // The running turn's model (a /model switch applies from the next turn), else the next turn's.
    target: () => ({
      ...conversation.target(),
      contextWindow: modelInfo(conversation.target().model, settings.models).contextWindow,
    }),
    transcript,
    jobState: () => jobStateLines(agents.manager.list()),
    beforeCompact: (trigger, signal) => preCompactHooks(hooks, trigger, signal, (event) => events.publish(event)),
  });
  // SessionStart runs before the first prompt can: its context opens the first turn, its failures are start-up warnings.
  const started = await sessionStartHooks(hooks, resumed ? 'resume' : 'startup', lifetime.signal);
  for (const event of started.events) {
    const line = hookLine(event);
    if (line && line.level === 'warn') warnings.push(line.text);
  }
  // Who takes part in the parent's turns, in the order each moment asks them.
  const session = new Session({
    id,
    workspace,
    conversation,
    limits,
    ledger,
    events,
    participants: [
      transcriptParticipant(transcript),
      userHooksParticipant(hooks, started.context),
      jobsParticipant(agents),
      compactionParticipant(compactor),
      ...(mcp ? [mcpParticipant(mcp, coreTools)] : []),
    ],
  });

  followModel(parentModel, { conversation, transcript, events });
  const opened: Omit<OpenedSession, keyof ModelFace | 'rewind'> = {
    session,
    provider: providerConfig.provider,
    ...(providerConfig.baseURL ? { baseURL: providerConfig.baseURL } : {}),
    sandbox: `${sandboxConfig.mode}${sandboxConfig.network ? ', network allowed' : ''}`,
    paths,
    gate,
    agents,
    warnings,
    wakeOnComplete: settings.wakeOnComplete ?? true,
    notify: settings.notify ?? 'bell',
    statusLine,
    events,
    waitForAgents: agents.waitForNotices,
    async compact(signal) {
      const event = await compactor.compactNow(signal);
      events.publish(event);
      return event;
    },
    totals: () => ledger.totals(),
    cost: () => agents.cost(),
    costOf: agents.costOf,
    usageReport: () => agents.usage(),
    limitsOf: (model) => modelInfo(model, settings.models),
    jobs: () => agents.manager.list(),
    storedJobs: resumed?.storedJobs ?? [],
    earlierTurnEnds: earlier?.ends ?? [],
    agentNames: [...definitions.keys()],
    agentColors: new Map([...definitions.values()].flatMap((agent) => (agent.color ? [[agent.name, agent.color] as const] : []))),
    commands: commandSummaries(conventions.commands),
    skillNames: [...conventions.skills.keys()],
    submitPrompt: promptSubmitter({
      commands: conventions.commands,
      directives,
      gate,
      ...(mcp ? { mcp } : {}),
      images: sessionPromptImages({ gate: toolGate(gate, workspace), tools: baseTools, workspace, notify }),
      session,
    }),
    instructionFiles: instructions.info,
    mcp: mcpFace(mcp),
    moveToBackground: () => foreground.detach(),
    close: async (reason = 'other') => {
      // SessionEnd runs while the session still stands (its hook reads the transcript), bounded by its timeout.
      await sessionEndHooks(hooks, reason, new AbortController().signal, (event) => events.publish(event));
      lifetime.abort();
      await agents.manager.close();
      await mcp?.close();
    },
  };
  // The model's facts are read when asked: /model switches them.
  return Object.assign(modelFace(parentModel, parent.settings), opened, { rewind: checkpoints.rewinder(session, transcript) });
}
