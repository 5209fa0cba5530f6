/**
 * The parent's foreground bash commands in the editor's terminal (`terminal/*`), as a core
 * CommandRunner: the command outrider would spawn, its environment and output cap go in
 * `terminal/create`; the call's tool call then embeds the terminal, so the editor shows it live.
 * A create that fails leaves the command to run locally; timeouts, stops and secrets stay the core's.
 */
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  SendRequestOptions,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk/unstable';
import type { CommandRunner } from '../../core/index.js';

/** The editor's terminal methods (offered when `clientCapabilities.terminal` is true). */
export interface AcpTerminal {
  create(params: CreateTerminalRequest, options?: SendRequestOptions): Promise<CreateTerminalResponse>;
  output(params: TerminalOutputRequest): Promise<TerminalOutputResponse>;
  waitForExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  kill(params: KillTerminalRequest): Promise<unknown>;
  release(params: ReleaseTerminalRequest): Promise<unknown>;
}

/** Where a terminal shows: the ACP session, and its tool call once the terminal exists. */
export interface TerminalHost {
  sessionId: string;
  show(callId: string, terminalId: string): void;
}

/** A CommandRunner over the editor's terminal; `host` is undefined until the session is open. */
export function terminalRunner(terminal: AcpTerminal, host: () => TerminalHost | undefined): CommandRunner {
  return {
    async start(command, call) {
      const at = host();
      if (!at) throw new Error('the session is not open yet');
      const { terminalId } = await terminal.create({
        sessionId: at.sessionId,
        command: command.command,
        args: command.args,
        cwd: command.cwd,
        env: command.env,
        outputByteLimit: command.outputByteLimit,
      });
      const ids = { sessionId: at.sessionId, terminalId };
      if (call.callId) at.show(call.callId, terminalId);
      return {
        waitForExit: async () => {
          const exit = await terminal.waitForExit(ids);
          return { code: exit.exitCode ?? null, signal: exit.signal ?? null };
        },
        output: async () => {
          const out = await terminal.output(ids);
          return { text: out.output, truncated: out.truncated };
        },
        kill: async () => void (await terminal.kill(ids)),
        release: async () => void (await terminal.release(ids)),
      };
    },
  };
}
