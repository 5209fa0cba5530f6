/**
 * The ACP agent (the official SDK's agent side, protocol version 1 with the subagents
 * additions of its unstable schema): which methods it answers and with what (docs/acp.md).
 * Sessions live here, one connection's worth: nothing is module state.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  type AgentApp,
  type AgentContext,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
  agent,
} from '@agentclientprotocol/sdk/unstable';
import { listSessions, type SessionSetup } from '../../core/index.js';
import { describeStartupError } from '../../start/session-setup.js';
import { type AcpPeer, AcpSession, TurnFailedError } from './acp-session.js';
import { mcpConfigText } from './mcp-config.js';
import { type PromptContent, UnsupportedContentError, promptContent } from './prompt-text.js';

/** What the editor's session requests add to the command line's setup. */
export interface SessionRequest {
  cwd: string;
  mcpConfig?: string;
  additionalDirectories?: string[];
  /** session/load: the stored session to resume. */
  resume?: string;
}

export interface AcpAgentOptions {
  /** The setup of a session in `request.cwd`: the command line's flags with the editor's additions. */
  setupFor(request: SessionRequest): SessionSetup;
  /** Where stored sessions are (session/list). */
  sessionsDir: string;
  /** Wait for sub-agents before a prompt's answer (`--no-wait-agents` turns it off). */
  waitAgents: boolean;
  version: string;
  debug: boolean;
  warn(text: string): void;
}

/** The agent app and what the command does when the connection ends. */
export interface AcpAgent {
  app: AgentApp;
  /** Closes every session (SessionEnd hooks, sub-agents stopped, MCP servers closed). */
  closeAll(): Promise<void>;
}

export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const sessions = new Map<string, AcpSession>();
  let client: AgentContext | undefined;
  let capabilities: ClientCapabilities = {};

  const peer = (): AcpPeer => {
    const to = client!;
    return {
      update: (sessionId, update) => {
        to.notify('session/update', { sessionId, update }).catch((error: unknown) =>
          options.warn(`could not send an update: ${String(error)}`),
        );
      },
      requestPermission: (params, sendOptions) => to.request('session/request_permission', params, sendOptions),
      ...(capabilities.fs?.readTextFile
        ? { readTextFile: (params, sendOptions) => to.request('fs/read_text_file', params, sendOptions) }
        : {}),
      ...(capabilities.fs?.writeTextFile
        ? { writeTextFile: (params, sendOptions) => to.request('fs/write_text_file', params, sendOptions) }
        : {}),
      ...(capabilities.terminal
        ? {
            terminal: {
              create: (params, sendOptions) => to.request('terminal/create', params, sendOptions),
              output: (params) => to.request('terminal/output', params),
              waitForExit: (params) => to.request('terminal/wait_for_exit', params),
              kill: (params) => to.request('terminal/kill', params),
              release: (params) => to.request('terminal/release', params),
            },
          }
        : {}),
      subagents: capabilities.subagents !== undefined && capabilities.subagents !== null,
      warn: (text) => options.warn(text),
    };
  };

  /** The parent session a request names; a child session or an unknown id is an error that says which. */
  const sessionFor = (sessionId: string): AcpSession => {
    const session = sessions.get(sessionId);
    if (session) return session;
    for (const parent of sessions.values()) {
      const job = parent.jobOf(sessionId);
      if (job) {
        throw RequestError.invalidRequest(
          { sessionId },
          `${sessionId} is sub-agent ${job}'s child session: it takes no prompts or modes; only session/cancel stops it`,
        );
      }
    }
    throw new RequestError(-32002, `no session ${sessionId} here: start one with session/new or resume it with session/load`, {
      sessionId,
    });
  };

  const open = async (request: SessionRequest, mcpServers: McpServer[]): Promise<AcpSession> => {
    if (!path.isAbsolute(request.cwd) || !existsSync(request.cwd) || !statSync(request.cwd).isDirectory()) {
      throw RequestError.invalidParams({ cwd: request.cwd }, `cwd ${request.cwd} is not an absolute path to a folder`);
    }
    let mcpConfig: string | undefined;
    try {
      mcpConfig = mcpConfigText(mcpServers);
    } catch (error) {
      throw RequestError.invalidParams({ mcpServers }, describeStartupError(error));
    }
    try {
      const setup = options.setupFor({ ...request, ...(mcpConfig ? { mcpConfig } : {}) });
      const session = await AcpSession.open(setup, peer(), { cwd: request.cwd, waitAgents: options.waitAgents });
      for (const warning of session.opened.warnings) options.warn(warning);
      sessions.set(session.id, session);
      return session;
    } catch (error) {
      if (error instanceof RequestError) throw error;
      const message = describeStartupError(error, options.debug);
      // A stored session that is not there is the editor's to know as such.
      if (error instanceof Error && error.name === 'SessionLookupError')
        throw new RequestError(-32002, message, { sessionId: request.resume });
      throw new RequestError(-32603, message);
    }
  };

  const app = agent({ name: 'outrider' })
    .onConnect((connection) => {
      client = connection.client;
    })
    .onRequest('initialize', ({ params }): InitializeResponse => {
      capabilities = params.clientCapabilities ?? {};
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          // Images are checked and attached (prompt-text.ts); audio is not offered.
          promptCapabilities: { image: true, audio: false, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
          sessionCapabilities: { list: {}, close: {}, additionalDirectories: {} },
        },
        agentInfo: { name: 'outrider', title: 'outrider', version: options.version },
        authMethods: [],
      };
    })
    .onRequest('session/new', async ({ params }) => {
      const session = await open(
        { cwd: params.cwd, ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}) },
        params.mcpServers,
      );
      // After the answer: the editor knows the session's id only from it.
      setImmediate(() => session.announceCommands());
      return { sessionId: session.id, modes: session.modes(), configOptions: session.configOptions() };
    })
    .onRequest('session/load', async ({ params }) => {
      const live = sessions.get(params.sessionId);
      const session =
        live ??
        (await open(
          {
            cwd: params.cwd,
            resume: params.sessionId,
            ...(params.additionalDirectories ? { additionalDirectories: params.additionalDirectories } : {}),
          },
          params.mcpServers,
        ));
      // The history is streamed before the answer, as session/load asks.
      session.replay();
      setImmediate(() => session.announceCommands());
      return { modes: session.modes(), configOptions: session.configOptions() };
    })
    .onRequest('session/list', ({ params }) => ({
      sessions: listSessions(options.sessionsDir, params.cwd ? { cwd: params.cwd } : {}).map((stored) => ({
        sessionId: stored.id,
        cwd: stored.cwd,
        title: stored.firstPrompt || null,
        updatedAt: stored.updatedAt,
      })),
    }))
    .onRequest('session/prompt', async ({ params, signal }) => {
      const session = sessionFor(params.sessionId);
      if (session.running) {
        throw RequestError.invalidRequest(
          { sessionId: params.sessionId },
          'a prompt is already running in this session: wait for its answer or send session/cancel',
        );
      }
      let content: PromptContent;
      try {
        content = promptContent(params.prompt);
      } catch (error) {
        if (error instanceof UnsupportedContentError)
          throw RequestError.invalidParams({ sessionId: params.sessionId }, error.message);
        throw error;
      }
      if (!content.text.trim() && content.images.length === 0) {
        throw RequestError.invalidParams({ sessionId: params.sessionId }, 'the prompt is empty');
      }
      try {
        return await session.prompt(content, signal);
      } catch (error) {
        if (error instanceof TurnFailedError) throw new RequestError(-32603, error.message);
        throw error;
      }
    })
    .onNotification('session/cancel', ({ params }) => {
      const session = sessions.get(params.sessionId);
      if (session) return session.cancel();
      for (const parent of sessions.values()) {
        const job = parent.jobOf(params.sessionId);
        if (job) return parent.cancelJob(job);
      }
      options.warn(`session/cancel for an unknown session ${params.sessionId}: nothing to cancel`);
    })
    .onRequest('session/set_mode', ({ params }) => {
      const session = sessionFor(params.sessionId);
      if (!session.setMode(params.modeId)) {
        const modes = session.modes().availableModes.map((mode) => mode.id);
        throw RequestError.invalidParams(
          { modeId: params.modeId },
          `unknown mode "${params.modeId}": one of ${modes.join(', ')}`,
        );
      }
      return {};
    })
    // The model of the next turns (config-options.ts): as /model in the TUI.
    .onRequest('session/set_config_option', ({ params }) => {
      const session = sessionFor(params.sessionId);
      const refused = session.setConfigOption(params.configId, params.value);
      if (refused) throw RequestError.invalidParams({ configId: params.configId }, refused);
      return { configOptions: session.configOptions() };
    })
    .onRequest('session/close', async ({ params }) => {
      const session = sessionFor(params.sessionId);
      sessions.delete(params.sessionId);
      await session.close();
      return {};
    });

  return {
    app,
    closeAll: async () => {
      const all = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(all.map((session) => session.close()));
    },
  };
}
