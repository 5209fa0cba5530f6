/**
 * The test editor's terminal (`terminal/*`): each terminal is a real process spawned from the
 * argv the agent sends, in its `cwd`, with its `env` added to the editor's own environment (which
 * holds fake provider keys, so a test can see they were blanked). Its output is kept to
 * `outputByteLimit`, cut from the start; `terminal/kill` signals the process alone, as a naive
 * editor would, so whatever it started is the agent's to stop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk/unstable';

/** The provider key in the editor's own environment: a command must never see it. */
export const EDITOR_KEY = 'sk-ant-editor-environment-key-0123456789';

export interface EditorTerminal {
  id: string;
  request: CreateTerminalRequest;
  child: ChildProcess;
  output: Buffer;
  truncated: boolean;
  exit?: WaitForTerminalExitResponse;
  exited: Promise<WaitForTerminalExitResponse>;
  released: boolean;
}

export interface EditorTerminals {
  /** The editor's own environment, which a terminal's `env` is added to. */
  env: Record<string, string>;
  /** Every terminal created, in order. */
  all: EditorTerminal[];
  /** Every terminal/* method called, in order (`create`, `wait_for_exit`, …). */
  calls: string[];
  /** Runs before a terminal is created; a throw fails terminal/create. */
  beforeCreate: (request: CreateTerminalRequest) => void;
  /** Runs once the terminal's process started, before terminal/create answers: a promise holds the answer. */
  beforeAnswer: (terminal: EditorTerminal) => void | Promise<void>;
  create(request: CreateTerminalRequest): Promise<CreateTerminalResponse>;
  output(request: TerminalOutputRequest): TerminalOutputResponse;
  waitForExit(request: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse>;
  kill(request: KillTerminalRequest): Record<string, never>;
  release(request: ReleaseTerminalRequest): Record<string, never>;
  /** Kills what still runs (the test's end). */
  closeAll(): void;
}

export function editorTerminals(): EditorTerminals {
  const terminals: EditorTerminals = {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/',
      ANTHROPIC_API_KEY: EDITOR_KEY,
      OPENAI_API_KEY: EDITOR_KEY,
    },
    all: [],
    calls: [],
    beforeCreate: () => {},
    beforeAnswer: () => {},
    async create(request) {
      terminals.calls.push('create');
      terminals.beforeCreate(request);
      const env = { ...terminals.env };
      for (const { name, value } of request.env ?? []) env[name] = value;
      const child = spawn(request.command, request.args ?? [], {
        cwd: request.cwd ?? process.cwd(),
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const terminal: EditorTerminal = {
        id: `term-${terminals.all.length + 1}`,
        request,
        child,
        output: Buffer.alloc(0),
        truncated: false,
        released: false,
        exited: new Promise((resolve) => {
          child.on('exit', (code, signal) => resolve({ exitCode: code, signal }));
          child.on('error', () => resolve({ exitCode: 127, signal: null }));
        }),
      };
      void terminal.exited.then((exit) => (terminal.exit = exit));
      const limit = request.outputByteLimit ?? Infinity;
      const append = (chunk: Buffer): void => {
        let output = Buffer.concat([terminal.output, chunk]);
        if (output.length > limit) {
          let start = output.length - limit;
          // Cut at a character boundary, as the protocol asks.
          while (start < output.length && (output[start]! & 0xc0) === 0x80) start++;
          output = output.subarray(start);
          terminal.truncated = true;
        }
        terminal.output = output;
      };
      child.stdout!.on('data', append);
      child.stderr!.on('data', append);
      terminals.all.push(terminal);
      await terminals.beforeAnswer(terminal);
      return { terminalId: terminal.id };
    },
    output(request) {
      terminals.calls.push('output');
      const terminal = find(request.terminalId);
      return {
        output: terminal.output.toString('utf8'),
        truncated: terminal.truncated,
        ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
      };
    },
    async waitForExit(request) {
      terminals.calls.push('wait_for_exit');
      return find(request.terminalId).exited;
    },
    kill(request) {
      terminals.calls.push('kill');
      find(request.terminalId).child.kill('SIGKILL');
      return {};
    },
    release(request) {
      terminals.calls.push('release');
      const terminal = find(request.terminalId);
      if (!terminal.exit) terminal.child.kill('SIGKILL');
      terminal.released = true;
      return {};
    },
    closeAll() {
      for (const terminal of terminals.all) if (!terminal.exit) terminal.child.kill('SIGKILL');
    },
  };
  const find = (id: string): EditorTerminal => {
    const terminal = terminals.all.find((t) => t.id === id && !t.released);
    if (!terminal) throw new Error(`no terminal ${id}`);
    return terminal;
  };
  return terminals;
}
