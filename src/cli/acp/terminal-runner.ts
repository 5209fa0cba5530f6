/**
 * The parent's foreground bash commands in the editor's terminal (`terminal/*`), as a core
 * CommandRunner: the command outrider would spawn, its environment and output cap go in
 * `terminal/create`; the call's tool call then embeds the terminal, so the editor shows it live.
 * Only an editor without the method (JSON-RPC -32601, method not found) or a request that never
 * left (no session open yet) leaves the command to run locally; the first -32601 is remembered,
 * so later commands run locally without asking. Any other error from `terminal/create` may come
 * from an editor that started the command anyway: it rejects, and the core fails the call rather
 * than run the command twice. A stop while the create is pending cancels the request
 * (`$/cancel_request`) but keeps waiting for its answer, so a terminal created anyway is still
 * the core's to kill and release. Timeouts, stops and secrets stay the core's.
 */
import { RequestError } from '@agentclientprotocol/sdk/unstable';
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

/** JSON-RPC's "method not found": the editor has no terminal/create, whatever it declared. */
const METHOD_NOT_FOUND = -32601;

/** A CommandRunner over the editor's terminal; `host` is undefined until the session is open. */
export function terminalRunner(terminal: AcpTerminal, host: () => TerminalHost | undefined): CommandRunner {
  // An editor that lacked the method once lacks it for good: later commands do not ask again.
  let missing = false;
  return {
    async start(command, call) {
      const at = host();
      if (!at || missing) return undefined;
      let created: CreateTerminalResponse;
      try {
        created = await terminal.create(
          {
            sessionId: at.sessionId,
            command: command.command,
            args: command.args,
            cwd: command.cwd,
            env: command.env,
            outputByteLimit: command.outputByteLimit,
          },
          // Not `stopWaitingOnCancel`: the answer may carry a terminal the core must still stop.
          { cancellationSignal: call.signal },
        );
      } catch (error) {
        if (!(error instanceof RequestError) || error.code !== METHOD_NOT_FOUND) throw error;
        missing = true;
        return undefined;
      }
      const { terminalId } = created;
      const ids = { sessionId: at.sessionId, terminalId };
      // A terminal created after the call was stopped is only there to be killed: the call has ended.
      if (call.callId && !call.signal.aborted) at.show(call.callId, terminalId);
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
