import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import packageJson from '../../../package.json' with { type: 'json' };
import type { ExpandedServer } from '../config/mcp-servers.js';
import { oneLine } from '../platform/text.js';
import { SignInNeeded } from './oauth-provider.js';
import type { CallResult } from './result-text.js';

/** A tool as a server lists it (the fields used here). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; title?: string };
}

/** A resource as a server lists it. */
export interface McpResourceInfo {
  uri: string;
  name?: string;
  description?: string;
  mimeType?: string;
}

/** A prompt as a server lists it: its name and the arguments it takes, in order. */
export interface McpPromptInfo {
  name: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

/** What to connect to: a configured server (its entry expanded), or a hosted one over the transport its host makes. */
export type ConnectTarget = ExpandedServer | { type: 'sdk'; connect: () => Transport };

/** One live connection to a server. */
export interface McpConnection {
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal; onProgress?: (text: string) => void },
  ): Promise<CallResult>;
  /** What the server offers beside tools (its capabilities at initialize). */
  offers: { resources: boolean; prompts: boolean };
  listResources(signal: AbortSignal): Promise<McpResourceInfo[]>;
  readResource(uri: string, signal: AbortSignal): Promise<{ contents: Array<Record<string, unknown>> }>;
  listPrompts(signal: AbortSignal): Promise<McpPromptInfo[]>;
  getPrompt(
    name: string,
    args: Record<string, string>,
    signal: AbortSignal,
  ): Promise<{ messages: Array<{ role: string; content: unknown }> }>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  cwd: string;
  /** Aborts the start (its timeout, or the session closing); the server is then closed. */
  signal: AbortSignal;
  /** The connection ended without `close()`: the process exited, or the server hung up. */
  onClosed: (reason: string) => void;
  /** A non-fatal transport error, for /mcp's "last error". */
  onError: (message: string) => void;
  /** The server changed its list of tools (`notifications/tools/list_changed`). */
  onToolsChanged: (tools: McpToolInfo[]) => void;
  /** The server changed its list of prompts (`notifications/prompts/list_changed`). */
  onPromptsChanged?: (prompts: McpPromptInfo[]) => void;
  /**
   * A remote server's OAuth sign-in (stored tokens, refreshed by the SDK when the server turns
   * the access token down). Without it a server that answers 401 fails.
   */
  authProvider?: OAuthClientProvider;
  /** A running remote server wants a sign-in again (its tokens no longer hold and could not be refreshed). */
  onSignInNeeded?: () => void;
}

/**
 * The SDK's timeouts run on their own clock; ours go through injected timers, so the SDK's
 * are set past anything ours would allow (the largest delay a Node timer takes).
 */
const NO_SDK_TIMEOUT = 2_147_483_647;
/** How much of a stdio server's stderr is kept, for the error line when it fails. */
const STDERR_TAIL = 2000;

/**
 * Starts or reaches one server, initializes the session and lists its tools and prompts. The
 * SDK is imported here, on first use, so a session without servers never loads it. Throws an
 * error whose message is one line saying what went wrong.
 */
export async function connectServer(
  server: ConnectTarget,
  options: ConnectOptions,
): Promise<{ connection: McpConnection; tools: McpToolInfo[]; prompts: McpPromptInfo[] }> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const stderr = { text: '' };
  const transport = await createTransport(server, options.cwd, stderr, options.authProvider);
  let closing = false;
  const client: Client = new Client(
    { name: 'outrider', version: packageJson.version },
    {
      capabilities: {},
      listChanged: {
        tools: {
          onChanged: (error, tools) => {
            if (error) options.onError(`could not list its tools again: ${error.message}`);
            else if (tools) options.onToolsChanged(tools as McpToolInfo[]);
          },
        },
        prompts: {
          onChanged: (error, prompts) => {
            if (error) options.onError(`could not list its prompts again: ${oneLine(error.message, 200)}`);
            else if (prompts) options.onPromptsChanged?.(prompts as McpPromptInfo[]);
          },
        },
      },
    },
  );
  client.onerror = (error) => {
    if (!closing) options.onError(oneLine(error.message, 300));
  };
  const closeQuietly = async () => {
    closing = true;
    await client.close().catch(() => {});
  };
  const onAbort = () => void closeQuietly();
  const listPrompts = (signal: AbortSignal) =>
    listAll(async (cursor) => {
      const page = await client.listPrompts(cursor ? { cursor } : undefined, { signal, timeout: NO_SDK_TIMEOUT });
      return { items: page.prompts as McpPromptInfo[], next: page.nextCursor };
    });
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    await client.connect(transport, { signal: options.signal, timeout: NO_SDK_TIMEOUT });
    const tools = await listAllTools(client, options.signal);
    const prompts = client.getServerCapabilities()?.prompts ? await startPrompts(() => listPrompts(options.signal), options) : [];
    client.onclose = () => {
      if (!closing)
        options.onClosed(
          withStderr(server.type === 'stdio' ? 'the server exited' : 'the server closed the connection', stderr.text),
        );
    };
    return {
      tools,
      prompts,
      connection: {
        callTool: async (name, args, call) => {
          try {
            return (await client.callTool({ name, arguments: args }, undefined, {
              signal: call.signal,
              timeout: NO_SDK_TIMEOUT,
              ...(call.onProgress ? { onprogress: (p) => call.onProgress?.(progressText(p)) } : {}),
            })) as CallResult;
          } catch (error) {
            if (!options.authProvider || !(await isSignInError(error))) throw error;
            options.onSignInNeeded?.();
            throw new SignInNeeded();
          }
        },
        offers: {
          resources: client.getServerCapabilities()?.resources !== undefined,
          prompts: client.getServerCapabilities()?.prompts !== undefined,
        },
        listResources: (signal) =>
          listAll(async (cursor) => {
            const page = await client.listResources(cursor ? { cursor } : undefined, { signal, timeout: NO_SDK_TIMEOUT });
            return { items: page.resources as McpResourceInfo[], next: page.nextCursor };
          }),
        readResource: async (uri, signal) =>
          (await client.readResource({ uri }, { signal, timeout: NO_SDK_TIMEOUT })) as {
            contents: Array<Record<string, unknown>>;
          },
        listPrompts,
        getPrompt: async (name, args, signal) =>
          (await client.getPrompt({ name, arguments: args }, { signal, timeout: NO_SDK_TIMEOUT })) as {
            messages: Array<{ role: string; content: unknown }>;
          },
        close: closeQuietly,
      },
    };
  } catch (error) {
    await closeQuietly();
    if (options.authProvider && (await isSignInError(error))) throw new SignInNeeded();
    throw new Error(withStderr(startError(error, server), stderr.text), { cause: error });
  } finally {
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function createTransport(
  server: ConnectTarget,
  cwd: string,
  stderr: { text: string },
  authProvider: OAuthClientProvider | undefined,
): Promise<Transport> {
  if (server.type === 'sdk') return server.connect();
  if (server.type === 'stdio') {
    const { StdioClientTransport, getDefaultEnvironment } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    // The server gets the few variables every program needs, plus its own `env`: not the
    // session's API keys, as Claude Code does.
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...getDefaultEnvironment(), ...server.env },
      cwd,
      stderr: 'pipe',
    });
    // Read as it comes, or a chatty server would block on a full pipe; only the tail is kept.
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr.text = (stderr.text + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return transport;
  }
  const options = { requestInit: { headers: server.headers }, ...(authProvider ? { authProvider } : {}) };
  if (server.type === 'sse') {
    const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
    return new SSEClientTransport(server.url, options);
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  return new StreamableHTTPClientTransport(server.url, options);
}

/**
 * The server wants a sign-in: our provider said so (no registration, no tokens, or tokens it
 * refused that could not be refreshed), or the SDK did (UnauthorizedError), anywhere in the chain.
 */
async function isSignInError(error: unknown): Promise<boolean> {
  const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js');
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    if (current instanceof SignInNeeded || current instanceof UnauthorizedError) return true;
    // StreamableHTTPError: "Server returned 401 after successful authentication" (a fresh token refused).
    if ((current as { code?: unknown }).code === 401) return true;
  }
  return false;
}

async function listAllTools(client: Client, signal: AbortSignal): Promise<McpToolInfo[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  // A server that pages forever is cut off: no real server has a thousand pages of tools.
  for (let page = 0; page < 1000; page += 1) {
    const result = await client.listTools(cursor ? { cursor } : undefined, { signal, timeout: NO_SDK_TIMEOUT });
    tools.push(...(result.tools as McpToolInfo[]));
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return tools;
}

/**
 * The prompts a server offers as it starts. A server whose listing fails still runs (its tools
 * work without): the error is reported and it has no prompts until it lists them again.
 */
async function startPrompts(list: () => Promise<McpPromptInfo[]>, options: ConnectOptions): Promise<McpPromptInfo[]> {
  try {
    return await list();
  } catch (error) {
    if (options.signal.aborted) throw error;
    options.onError(`could not list its prompts: ${oneLine(error instanceof Error ? error.message : String(error), 200)}`);
    return [];
  }
}

/** Every page of a listing; a server that pages without end is cut off at a hundred pages. */
async function listAll<T>(page: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 100; i += 1) {
    const result = await page(cursor);
    items.push(...result.items);
    cursor = result.next;
    if (!cursor) break;
  }
  return items;
}

function progressText(progress: { progress: number; total?: number; message?: string }): string {
  const figure = progress.total !== undefined ? `${progress.progress}/${progress.total}` : `${progress.progress}`;
  return progress.message ? `${progress.message} (${figure})` : `progress ${figure}`;
}

/** What went wrong at start, in words: a missing program, a refused connection, a server that quit. */
function startError(error: unknown, server: ConnectTarget): string {
  const code = errorCode(error);
  if (server.type === 'stdio' && code === 'ENOENT') {
    return `cannot run ${JSON.stringify(server.command)}: no such program (check the command and PATH)`;
  }
  if (server.type === 'stdio' && code === 'EACCES') return `cannot run ${JSON.stringify(server.command)}: permission denied`;
  if (code === 'ECONNREFUSED')
    return `cannot connect to ${server.type === 'http' || server.type === 'sse' ? server.url.origin : 'it'}: connection refused`;
  const message = error instanceof Error ? error.message : String(error);
  if (/connection closed/i.test(message)) {
    return server.type === 'stdio'
      ? 'the server exited before it was ready'
      : 'the server closed the connection before it was ready';
  }
  return oneLine(message, 300);
}

function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current && depth < 4; current = (current as { cause?: unknown }).cause, depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function withStderr(message: string, stderr: string): string {
  const last = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .at(-1);
  return last ? `${message}; its stderr ends: ${oneLine(last, 200)}` : message;
}
