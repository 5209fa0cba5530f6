/**
 * `outrider acp`: an Agent Client Protocol agent on stdin and stdout, for editors (Zed,
 * JetBrains, Neovim; docs/acp.md). stdout carries JSON-RPC and nothing else; what people read
 * goes to stderr. It runs until the editor closes stdin or a signal ends it, then closes every
 * session as the other front ends do (SessionEnd hooks, sub-agents stopped, commands' processes ended).
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk/unstable';
import packageJson from '../../../package.json' with { type: 'json' };
import { killOwned, outriderPaths, terminateOwned } from '../../core/index.js';
import { type CliOptions, EXIT } from '../../start/options.js';
import { sessionSetupFromCli, unhonouredFlags } from '../../start/session-setup.js';
import { stderrLines } from '../../start/stderr-lines.js';
import { createAcpAgent } from './acp-agent.js';

export interface AcpIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
}

/** What ends the agent: the editor gone (stdin closed), or one of these. */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export async function runAcpCommand(options: CliOptions, args: string[], io: AcpIo): Promise<number> {
  const say = stderrLines(io.env, io.stderr);
  const misuse = acpMisuse(options, args);
  if (misuse) {
    io.stderr.write(say.error(misuse));
    return EXIT.usage;
  }
  const unhonoured = unhonouredFlags(options);
  if (unhonoured) io.stderr.write(say.warn(unhonoured));
  const warn = (text: string) => io.stderr.write(say.warn(text));
  const agent = createAcpAgent({
    setupFor: (request) => {
      const setup = sessionSetupFromCli(options, { env: io.env, cwd: request.cwd, headless: false });
      const addDirs = [...(setup.flags.addDirs ?? []), ...(request.additionalDirectories ?? [])];
      return {
        ...setup,
        ...(request.mcpConfig ? { mcpConfig: [...(setup.mcpConfig ?? []), request.mcpConfig] } : {}),
        flags: {
          ...setup.flags,
          ...(addDirs.length ? { addDirs } : {}),
          ...(request.resume !== undefined ? { resume: request.resume } : {}),
        },
      };
    },
    sessionsDir: outriderPaths(io.env).sessionsDir,
    waitAgents: options.waitAgents,
    version: packageJson.version,
    debug: options.debug === true,
    warn,
  });
  // An editor that went away leaves a closed pipe: the write fails, and the run ends with stdin.
  io.stdout.on('error', () => {});
  const stream = ndJsonStream(
    Writable.toWeb(io.stdout as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(io.stdin as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = agent.app.connect(stream);
  // The first signal closes the connection and every session as the editor's leaving would; a
  // second one waits no more: what commands left is killed, and outrider ends as that signal would have it.
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (!signalled) {
      signalled = true;
      connection.close();
      return;
    }
    for (const stop of STOP_SIGNALS) process.off(stop, onSignal);
    killOwned();
    process.kill(process.pid, signal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  try {
    await connection.closed;
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    try {
      await agent.closeAll();
    } finally {
      // What a command left running ends with the agent, as with the other front ends.
      await terminateOwned().done;
    }
  }
  return EXIT.ok;
}

/** Why `outrider acp` cannot run with these options, if it cannot: the editor drives sessions and prompts. */
function acpMisuse(options: CliOptions, args: string[]): string | undefined {
  if (args.length > 0) return `unexpected argument "${args[0]}": outrider acp takes its prompts from the editor`;
  if (options.print !== undefined) return 'outrider acp takes its prompts from the editor: drop -p';
  if (options.inputFormat === 'stream-json' || options.outputFormat !== 'text') {
    return 'outrider acp speaks ACP on stdin and stdout: drop --input-format and --output-format';
  }
  if (options.continue || options.resume !== undefined || options.sessionId) {
    return 'outrider acp resumes sessions when the editor asks (session/load): drop --continue, --resume and --session-id';
  }
  if (options.permissionPromptTool) return 'outrider acp asks the editor for permissions: drop --permission-prompt-tool';
  return undefined;
}
