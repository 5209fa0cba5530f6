/**
 * The Agent SDK's in-process MCP servers (`initialize`'s `sdkMcpServers`): the program that
 * drives outrider runs them, and outrider's MCP client reaches each over the control channel.
 * Every JSON-RPC message outrider sends goes out as an `mcp_message` control request; the
 * answer to a request carries the server's reply as `mcp_response`. Messages the server sends
 * by itself (a changed tool list) come in as `mcp_message` requests, acknowledged empty.
 * See docs/claude-code.md.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { HostedMcpServer } from '../core/index.js';
import type { StreamChannel } from './stream-control.js';

/** At most this many in-process servers are taken from one `initialize`. */
export const MAX_SDK_MCP_SERVERS = 64;
/** How long a notification (or a reply) outrider sent waits for the host's acknowledgement before it is forgotten. */
const ACK_WAIT_MS = 30_000;
/** JSON-RPC's "internal error": what a request the host could not answer fails with. */
const INTERNAL_ERROR = -32603;

/** The servers of one session's host: each start gets a transport, and messages from the host reach the current one. */
export class SdkMcpHost {
  private readonly live = new Map<string, ControlTransport>();

  constructor(
    private readonly channel: StreamChannel,
    private readonly names: readonly string[],
  ) {
    channel.on('mcp_message', (request) => {
      const name = request.server_name;
      const transport = typeof name === 'string' ? this.live.get(name) : undefined;
      if (!transport) {
        throw new Error(
          `outrider has no in-process MCP server ${JSON.stringify(name)} running; initialize's sdkMcpServers names them`,
        );
      }
      if (!isMessage(request.message)) throw new Error('mcp_message: message must be a JSON-RPC 2.0 object');
      transport.receive(request.message);
      return {};
    });
  }

  /** The servers, as the session starts them. */
  servers(): HostedMcpServer[] {
    return this.names.map((name) => ({
      name,
      connect: () => {
        const transport = new ControlTransport(this.channel, name, () => {
          if (this.live.get(name) === transport) this.live.delete(name);
        });
        void this.live.get(name)?.close();
        this.live.set(name, transport);
        return transport;
      },
    }));
  }
}

/** One connection to one in-process server; everything it waits for ends at close(). */
class ControlTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private closed = false;
  /** The requests outrider asked the host and waits for, by JSON-RPC id. */
  private readonly requests = new Map<string | number, AbortController>();
  /** Notifications and replies sent: their (empty) acknowledgements are awaited only for a while. */
  private readonly acks = new Set<AbortController>();

  constructor(
    private readonly channel: StreamChannel,
    private readonly name: string,
    private readonly onClosed: () => void,
  ) {}

  async start(): Promise<void> {}

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error(`the connection to in-process MCP server ${JSON.stringify(this.name)} is closed`);
    const request = { subtype: 'mcp_message', server_name: this.name, message };
    if ('method' in message && 'id' in message) {
      const id = message.id;
      const controller = new AbortController();
      this.requests.set(id, controller);
      this.channel
        .request(request, controller.signal)
        .then(
          (answer) => this.deliver(reply(answer.mcp_response, id, this.name)),
          (error: Error) => {
            if (!controller.signal.aborted) this.deliver(failure(id, `${this.host()} did not answer: ${error.message}`));
          },
        )
        .finally(() => {
          if (this.requests.get(id) === controller) this.requests.delete(id);
        });
      return;
    }
    // The client gave up on a request (its timeout, or the turn was interrupted): so does the channel.
    if ('method' in message && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') this.requests.get(id)?.abort();
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), ACK_WAIT_MS);
    timer.unref();
    this.acks.add(controller);
    this.channel
      .request(request, controller.signal)
      .catch(() => {})
      .finally(() => {
        clearTimeout(timer);
        this.acks.delete(controller);
      });
  }

  /** A message the server sent by itself. */
  receive(message: JSONRPCMessage): void {
    if (!this.closed) this.onmessage?.(message);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const controller of [...this.requests.values(), ...this.acks]) controller.abort();
    this.requests.clear();
    this.acks.clear();
    this.onClosed();
    this.onclose?.();
  }

  private deliver(message: JSONRPCMessage): void {
    if (this.closed) return;
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private host(): string {
    return `the program hosting MCP server ${JSON.stringify(this.name)}`;
  }
}

/** The host's `mcp_response` when it is a JSON-RPC reply to request `id`; else an error reply saying what came. */
function reply(response: unknown, id: string | number, name: string): JSONRPCMessage {
  const value = response as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown } | null;
  if (typeof value === 'object' && value !== null && value.jsonrpc === '2.0' && value.id === id) {
    if (typeof value.result === 'object' && value.result !== null && !Array.isArray(value.result)) return value as JSONRPCMessage;
    const error = value.error as { code?: unknown; message?: unknown } | null | undefined;
    if (typeof error === 'object' && error !== null && typeof error.code === 'number' && typeof error.message === 'string')
      return value as JSONRPCMessage;
  }
  return failure(
    id,
    `the program hosting MCP server ${JSON.stringify(name)} answered mcp_message without a JSON-RPC reply to request ${JSON.stringify(id)} (its answer must be { "mcp_response": { "jsonrpc": "2.0", "id": ${JSON.stringify(id)}, "result": … } })`,
  );
}

function failure(id: string | number, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: INTERNAL_ERROR, message } };
}

/** Enough of a JSON-RPC 2.0 message for the MCP client to read (it checks the rest itself). */
function isMessage(value: unknown): value is JSONRPCMessage {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && (value as { jsonrpc?: unknown }).jsonrpc === '2.0'
  );
}
