/**
 * One ACP session: an outrider session (new, or loaded from the store) whose event stream is
 * sent to the editor as `session/update`s, whose gate asks through `session/request_permission`,
 * and whose sub-agent jobs are child sessions. A prompt runs the turn and, like headless mode,
 * the turns that hand the model its sub-agents' reports, so the answer accounts for every job.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type {
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  WriteTextFileRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SendRequestOptions,
  SessionConfigOption,
  SessionModeState,
  SessionUpdate,
  StopReason,
} from '@agentclientprotocol/sdk/unstable';
import {
  addUsage,
  emptyUsage,
  hookStopText,
  JobError,
  limitHint,
  type LoopResult,
  type OpenedSession,
  openSession,
  PERMISSION_MODES,
  type PermissionMode,
  serverWarning,
  sessionCommands,
  type SessionEvent,
  type SessionSetup,
  type StopCause,
} from '../../core/index.js';
import { ChildSessions, acpUsage } from './child-sessions.js';
import { configOptions, setConfigOption } from './config-options.js';
import { acpApprover } from './permission.js';
import type { PromptContent } from './prompt-text.js';
import { SessionUpdates } from './session-updates.js';
import { type AcpTerminal, terminalRunner } from './terminal-runner.js';

/** What a session needs of the connection: the editor's methods, and what the editor said it supports. */
export interface AcpPeer {
  update(sessionId: string, update: SessionUpdate): void;
  requestPermission(params: RequestPermissionRequest, options: SendRequestOptions): Promise<RequestPermissionResponse>;
  /** Present when the editor offers fs/read_text_file: read_file takes its buffers first. */
  readTextFile?: (params: ReadTextFileRequest, options: SendRequestOptions) => Promise<ReadTextFileResponse>;
  /** Present when the editor offers fs/write_text_file: edits in the editor's folder go through its buffers too. */
  writeTextFile?: (params: WriteTextFileRequest, options: SendRequestOptions) => Promise<unknown>;
  /** Present when the editor offers terminal/*: the parent's foreground bash commands run there. */
  terminal?: AcpTerminal;
  /** The editor understands child sessions (clientCapabilities.subagents). */
  subagents: boolean;
  /** A line for stderr (stdout carries JSON-RPC alone). */
  warn(text: string): void;
}

/** A turn that ended in an error: the prompt's JSON-RPC error says this. */
export class TurnFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TurnFailedError';
  }
}

const MODE_NAMES: Readonly<Record<PermissionMode, { name: string; description: string }>> = {
  default: { name: 'Default', description: 'Reads run; edits and commands ask' },
  'accept-edits': { name: 'Accept edits', description: 'Edits in the project run without asking; commands ask' },
  plan: { name: 'Plan', description: 'Read-only: nothing is changed' },
  yolo: { name: 'Yolo', description: 'Everything runs without asking (paths outside the project are still refused)' },
};

export class AcpSession {
  readonly id: string;
  private readonly parent: SessionUpdates;
  private readonly children: ChildSessions;
  private readonly unsubscribe: () => void;
  private turn: AbortController | undefined;
  /** How the model's last response ended, for the prompt's stop reason (max_tokens, refusal). */
  private lastStop: string | undefined;
  /** The commands last offered (JSON); undefined until the first offer, which must follow the session's response. */
  private offered: string | undefined;

  private constructor(
    readonly opened: OpenedSession,
    private readonly peer: AcpPeer,
    private readonly options: { cwd: string; waitAgents: boolean },
  ) {
    this.id = opened.session.id;
    this.parent = new SessionUpdates(options.cwd);
    this.children = new ChildSessions({ parentId: this.id, cwd: options.cwd, send: (id, update) => peer.update(id, update) });
    this.unsubscribe = opened.events.subscribe(({ event }) => this.onEvent(event));
  }

  /** Opens an outrider session for the editor: its approver and file reads go through `peer`. */
  static async open(setup: SessionSetup, peer: AcpPeer, options: { cwd: string; waitAgents: boolean }): Promise<AcpSession> {
    // The questions and reads come once the session is open and a prompt runs: by then it is set.
    const opening: { session?: AcpSession } = {};
    const approver = acpApprover({
      request: (params, sendOptions) => peer.requestPermission(params, sendOptions),
      sessionFor: (jobId) => opening.session!.sessionFor(jobId),
      cwd: options.cwd,
      warn: (text) => peer.warn(text),
    });
    const read = peer.readTextFile;
    const readText = read
      ? async (file: string, signal: AbortSignal) =>
          opening.session
            ? (await read({ sessionId: opening.session.id, path: file }, { cancellationSignal: signal })).content
            : undefined
      : undefined;
    const write = peer.writeTextFile;
    // Only the editor's own folder: an isolated sub-agent's worktree is no file the editor has open.
    // The folder as write_file resolves paths (links followed): a project reached through a link still matches.
    const root = realFolder(options.cwd);
    const writeText = write
      ? async (file: string, content: string, signal: AbortSignal) => {
          if (opening.session && isInside(root, file))
            await write({ sessionId: opening.session.id, path: file, content }, { cancellationSignal: signal });
        }
      : undefined;
    const runCommand = peer.terminal
      ? terminalRunner(peer.terminal, () => {
          const session = opening.session;
          return session && { sessionId: session.id, show: (callId, terminalId) => session.showTerminal(callId, terminalId) };
        })
      : undefined;
    const opened = await openSession({
      ...setup,
      approver,
      ...(readText ? { readText } : {}),
      ...(writeText ? { writeText } : {}),
      ...(runCommand ? { runCommand } : {}),
    });
    opening.session = new AcpSession(opened, peer, options);
    return opening.session;
  }

  /** Embeds the editor's terminal in the tool call running in it, so the editor shows it live. */
  showTerminal(callId: string, terminalId: string): void {
    for (const update of this.parent.terminal(callId, terminalId)) this.peer.update(this.id, update);
  }

  /** The four permission modes as ACP session modes, with the one in force. */
  modes(): SessionModeState {
    return {
      currentModeId: this.opened.gate.mode,
      availableModes: PERMISSION_MODES.map((id) => ({ id, ...MODE_NAMES[id] })),
    };
  }

  /** Sends what a loaded session holds: its history, then its earlier jobs as child sessions. */
  replay(): void {
    for (const update of SessionUpdates.replay(this.opened.session.messages(), this.options.cwd))
      this.peer.update(this.id, update);
    if (this.peer.subagents) this.children.replay(this.opened.storedJobs);
  }

  /**
   * Offers the slash commands (custom ones, MCP servers' prompts), which a prompt starting with
   * `/name` runs; again whenever the list changes, as servers come up, change their prompts or stop.
   */
  announceCommands(): void {
    const commands = sessionCommands(this.opened);
    const offer = JSON.stringify(commands);
    const first = this.offered === undefined;
    if (offer === this.offered) return;
    this.offered = offer;
    if (first && commands.length === 0) return;
    this.peer.update(this.id, {
      sessionUpdate: 'available_commands_update',
      availableCommands: commands.map((command) => ({
        name: command.name,
        description: command.description || command.name,
        ...(command.argumentHint ? { input: { hint: command.argumentHint } } : {}),
      })),
    });
  }

  /** Whether `sessionId` is one of this session's sub-agents. */
  jobOf(sessionId: string): string | undefined {
    return this.children.jobOf(sessionId);
  }

  get running(): boolean {
    return this.turn !== undefined;
  }

  /** Runs a prompt to its end: the turn, then (unless turned off) the turns that hand over its sub-agents' reports. */
  async prompt(content: PromptContent, requestSignal: AbortSignal): Promise<PromptResponse> {
    const turn = new AbortController();
    this.turn = turn;
    const stop = () => turn.abort();
    requestSignal.addEventListener('abort', stop, { once: true });
    const results: LoopResult[] = [];
    try {
      this.lastStop = undefined;
      // MCP servers the editor passed start with the session: their tools are there from the first turn.
      await this.opened.mcp.ready();
      results.push(await this.opened.submitPrompt(content.text, turn.signal, { images: content.images, typed: content.typed }));
      while (this.options.waitAgents && results.at(-1)!.cause.kind === 'completed' && !turn.signal.aborted) {
        if (!(await this.opened.waitForAgents(turn.signal))) break;
        results.push(await this.opened.session.submit(undefined, turn.signal));
      }
    } finally {
      requestSignal.removeEventListener('abort', stop);
      this.turn = undefined;
    }
    const cause: StopCause = turn.signal.aborted ? { kind: 'aborted' } : results.at(-1)!.cause;
    if (cause.kind === 'aborted') for (const update of this.parent.abandon()) this.peer.update(this.id, update);
    const usage = results.reduce((sum, result) => addUsage(sum, result.usage), emptyUsage());
    return { stopReason: this.stopReason(cause), usage: acpUsage(usage) };
  }

  /** session/cancel on this session: the turn stops (its sub-agents go on). */
  cancel(): void {
    this.turn?.abort();
  }

  /** session/cancel on a child session: that job stops; one that already ended is left as it is. */
  cancelJob(jobId: string): void {
    try {
      this.opened.agents.manager.stop(jobId);
    } catch (error) {
      if (!(error instanceof JobError)) throw error;
    }
  }

  /** The session's configuration options (the model): config-options.ts. */
  configOptions(): SessionConfigOption[] {
    return configOptions(this.opened);
  }

  /** Sets one; the reason when it cannot. */
  setConfigOption(configId: string, value: unknown): string | undefined {
    return setConfigOption(this.opened, configId, value);
  }

  setMode(modeId: string): boolean {
    const mode = PERMISSION_MODES.find((m) => m === modeId);
    if (!mode) return false;
    this.opened.gate.setMode(mode);
    return true;
  }

  async close(): Promise<void> {
    this.turn?.abort();
    try {
      await this.opened.close();
    } finally {
      this.unsubscribe();
    }
  }

  private sessionFor(jobId: string | undefined): { sessionId: string; labelled: boolean } {
    const child = jobId && this.peer.subagents ? this.children.sessionOf(jobId) : undefined;
    return child ? { sessionId: child, labelled: false } : { sessionId: this.id, labelled: true };
  }

  private onEvent(event: SessionEvent): void {
    switch (event.type) {
      case 'job_state':
        if (this.peer.subagents) this.children.onJobState(event.job);
        return;
      case 'job_event':
        if (this.peer.subagents) this.children.onJobEvent(event.jobId, event.event);
        return;
      case 'todos':
        this.peer.update(this.id, SessionUpdates.plan(event.todos));
        return;
      case 'notice':
        if (event.level === 'warn') this.peer.warn(event.text);
        return;
      case 'mcp_server':
        // A server the editor (or a settings file) named that could not start, or waits for a sign-in: its tools are missing.
        if (serverWarning(event.server)) this.peer.warn(serverWarning(event.server)!);
        if (this.offered !== undefined) this.announceCommands();
        return;
      case 'message_end':
        this.lastStop = event.stopReason;
        return;
      case 'text_delta':
      case 'thinking_delta':
      case 'tool_start':
      case 'tool_update':
      case 'tool_end':
        for (const update of this.parent.fromLoop(event)) this.peer.update(this.id, update);
        return;
      default:
        // Bookkeeping (turns, usage, hooks, deliveries, MCP states): nothing the editor draws.
        return;
    }
  }

  private stopReason(cause: StopCause): StopReason {
    switch (cause.kind) {
      case 'aborted':
        return 'cancelled';
      case 'completed':
        return this.lastStop === 'max_tokens' ? 'max_tokens' : this.lastStop === 'refusal' ? 'refusal' : 'end_turn';
      case 'limit':
        if (cause.limit === 'maxTurns') return 'max_turn_requests';
        if (cause.limit === 'maxTotalTokens') return 'max_tokens';
        this.say(`Stopped: ${cause.detail}${limitHint(cause.limit)}`);
        return 'end_turn';
      case 'hook':
        this.say(hookStopText(cause));
        return 'end_turn';
      case 'error':
        throw new TurnFailedError(cause.message);
    }
  }

  private say(text: string): void {
    this.peer.update(this.id, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `\n\n${text}` } });
  }
}

/** Whether `file` (absolute) is `folder` or below it. */
function isInside(folder: string, file: string): boolean {
  const relative = path.relative(folder, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** `folder` with its links resolved; as given when it cannot be. */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return folder;
  }
}
