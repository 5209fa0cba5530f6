/**
 * An editor for `outrider acp`: the official ACP SDK's client side, connected to the built
 * binary over its stdin and stdout. It records every `session/update`, answers permission
 * requests as the test says, and keeps the raw stdout, so a test can check that nothing but
 * JSON-RPC is written there.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { Readable, Writable } from 'node:stream';
import {
  type ClientCapabilities,
  type ClientContext,
  type InitializeResponse,
  PROTOCOL_VERSION,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type WriteTextFileRequest,
  client,
  ndJsonStream,
} from '@agentclientprotocol/sdk/unstable';
import { BIN } from './run-cli.js';
import { type EditorTerminals, editorTerminals } from './acp-terminal.js';
import { until } from './until.js';

export interface AcpEditor {
  /** Calls the agent's methods (`agent.request('session/new', …)`). */
  agent: ClientContext;
  init: InitializeResponse;
  /** Every session/update received, in order. */
  notifications: SessionNotification[];
  /** Every permission request received, in order. */
  permissions: RequestPermissionRequest[];
  /** Answers the next permission request; a test sets it before the prompt that asks. */
  onPermission: (request: RequestPermissionRequest) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
  /** Answers fs/read_text_file (offered only when `fs.readTextFile` is in the capabilities). */
  onReadTextFile: (request: ReadTextFileRequest) => ReadTextFileResponse | Promise<ReadTextFileResponse>;
  /** Answers fs/write_text_file (offered only when `fs.writeTextFile` is in the capabilities); by default saves to disk as an editor does. */
  onWriteTextFile: (request: WriteTextFileRequest) => Record<string, never> | Promise<Record<string, never>>;
  /** Every fs/write_text_file received, in order. */
  writes: WriteTextFileRequest[];
  /** terminal/* (offered only when `terminal` is in the capabilities): real processes, see acp-terminal.ts. */
  terminals: EditorTerminals;
  /** The updates of one session. */
  updates(sessionId: string): SessionUpdate[];
  stdout(): string;
  stderr(): string;
  pid: number;
  /** Closes stdin as an editor that goes away does; resolves with how the agent exited. */
  close(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `outrider acp` in `cwd` and initializes it with `capabilities`. */
export async function startAcp(options: {
  cwd: string;
  env: Record<string, string>;
  args?: string[];
  capabilities?: ClientCapabilities;
}): Promise<AcpEditor> {
  const child: ChildProcessByStdio<Writable, Readable, Readable> = spawn(
    process.execPath,
    [BIN, 'acp', ...(options.args ?? [])],
    {
      cwd: options.cwd,
      env: { PATH: process.env.PATH ?? '', HOME: options.env.OUTRIDER_HOME ?? os.tmpdir(), ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal })),
  );
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((result) => (exit = result));

  const editor = {
    notifications: [] as SessionNotification[],
    permissions: [] as RequestPermissionRequest[],
    onPermission: (): RequestPermissionResponse => {
      throw new Error('a permission request the test did not expect');
    },
    onReadTextFile: (): ReadTextFileResponse => {
      throw new Error('a file read the test did not expect');
    },
    writes: [] as WriteTextFileRequest[],
    onWriteTextFile: (request: WriteTextFileRequest) => {
      writeFileSync(request.path, request.content);
      return {};
    },
    terminals: editorTerminals(),
  } as unknown as AcpEditor;
  const app = client({ name: 'outrider-test-editor' })
    .onNotification('session/update', ({ params }) => {
      editor.notifications.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      editor.permissions.push(params);
      return editor.onPermission(params);
    })
    .onRequest('fs/read_text_file', async ({ params }) => editor.onReadTextFile(params))
    .onRequest('fs/write_text_file', async ({ params }) => {
      editor.writes.push(params);
      return editor.onWriteTextFile(params);
    })
    .onRequest('terminal/create', async ({ params }) => editor.terminals.create(params))
    .onRequest('terminal/output', async ({ params }) => editor.terminals.output(params))
    .onRequest('terminal/wait_for_exit', async ({ params }) => editor.terminals.waitForExit(params))
    .onRequest('terminal/kill', async ({ params }) => editor.terminals.kill(params))
    .onRequest('terminal/release', async ({ params }) => editor.terminals.release(params));
  const connection = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
    ),
  );
  editor.agent = connection.agent;
  editor.init = await connection.agent.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: options.capabilities ?? {},
    clientInfo: { name: 'outrider-test-editor', version: '0.0.0' },
  });
  editor.updates = (sessionId) => editor.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  editor.stdout = () => stdout;
  editor.stderr = () => stderr;
  editor.pid = child.pid!;
  editor.close = async () => {
    editor.terminals.closeAll();
    child.stdin.end();
    await until(() => exit, { what: 'outrider acp to exit once its stdin closed', observe: () => stderr, timeoutMs: 20_000 });
    connection.close();
    return exit!;
  };
  return editor;
}

/** The text of the agent_message_chunk updates in `updates`, joined. */
export function messageText(updates: SessionUpdate[]): string {
  return updates
    .filter((u) => u.sessionUpdate === 'agent_message_chunk')
    .map((u) => (u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

/** Each stdout line is one JSON-RPC 2.0 message: nothing else reaches stdout. */
export function jsonRpcLines(stdout: string): unknown[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const message = JSON.parse(line) as { jsonrpc?: string };
      if (message.jsonrpc !== '2.0') throw new Error(`not a JSON-RPC message on stdout: ${line}`);
      return message;
    });
}
