/**
 * What MCP servers offer beside tools, as Claude Code offers it: resources through two tools
 * (`list_mcp_resources`, `read_mcp_resource`: Claude Code's ListMcpResourcesTool and
 * ReadMcpResourceTool), and prompts as commands (`/mcp__<server>__<prompt> args`).
 */
import * as z from 'zod';
import { oneLine } from '../platform/text.js';
import { type AnyTool, defineTool } from '../tools/define.js';
import type { McpConnection } from './connection.js';
import { sanitizeNamePart } from './names.js';
import { parsePromptCommand } from './prompt-commands.js';

/** A running server, by its configured name. */
export interface LiveServer {
  name: string;
  connection: McpConnection;
}

/** A resource's text kept for the model at most; the rest is cut (a binary one is described, not sent). */
const MAX_RESOURCE_CHARS = 200_000;

/** The two resource tools, for the servers running now that offer resources. */
export function resourceTools(servers: () => LiveServer[]): AnyTool[] {
  const offering = () => servers().filter((server) => server.connection.offers.resources);
  const list = defineTool({
    name: 'list_mcp_resources',
    description:
      "List the resources (files, records, documents) the MCP servers offer: each one's server, URI, name and type. " +
      'Read one with read_mcp_resource.',
    kind: 'read-only',
    parallel: true,
    schema: z.object({ server: z.string().optional().describe('only this server') }),
    label: (args) => args.server ?? 'all servers',
    async execute(args, ctx) {
      const chosen = offering().filter((server) => args.server === undefined || server.name === args.server);
      if (chosen.length === 0) {
        return { content: noServer(args.server, offering()), isError: args.server !== undefined };
      }
      const lines: string[] = [];
      for (const server of chosen) {
        try {
          const resources = await server.connection.listResources(ctx.signal);
          for (const r of resources) {
            const about = [
              r.name && r.name !== r.uri ? r.name : '',
              r.mimeType ? `(${r.mimeType})` : '',
              r.description ? `: ${oneLine(r.description, 200)}` : '',
            ]
              .filter(Boolean)
              .join(' ');
            lines.push(`${server.name} ${r.uri}${about ? ` ${about}` : ''}`);
          }
        } catch (error) {
          lines.push(`${server.name}: could not list its resources (${oneLine((error as Error).message, 200)})`);
        }
      }
      return lines.length ? lines.join('\n') : 'No resources.';
    },
  });
  const read = defineTool({
    name: 'read_mcp_resource',
    description: 'Read one resource of an MCP server by its URI (list_mcp_resources lists them).',
    kind: 'read-only',
    parallel: true,
    schema: z.object({ server: z.string().min(1), uri: z.string().min(1) }),
    label: (args) => `${args.server} ${args.uri}`,
    async execute(args, ctx) {
      const server = offering().find((s) => s.name === args.server);
      if (!server) return { content: noServer(args.server, offering()), isError: true };
      const result = await server.connection.readResource(args.uri, ctx.signal);
      const parts = result.contents.map((content) => {
        if (typeof content.text === 'string') return content.text;
        const size = typeof content.blob === 'string' ? Math.floor((content.blob.length * 3) / 4) : 0;
        const type = typeof content.mimeType === 'string' ? content.mimeType : 'unknown type';
        return `[binary content of ${type}, ${size} bytes, not shown]`;
      });
      const text = parts.join('\n\n');
      return text.length > MAX_RESOURCE_CHARS
        ? `${text.slice(0, MAX_RESOURCE_CHARS)}\n[… cut at ${MAX_RESOURCE_CHARS} of ${text.length} characters]`
        : text || '(empty)';
    },
  });
  return [list, read];
}

function noServer(asked: string | undefined, offering: LiveServer[]): string {
  const names = offering.map((s) => s.name).join(', ');
  if (asked === undefined) return 'No running MCP server offers resources.';
  return `No running MCP server "${asked}" offers resources${names ? `; those that do: ${names}` : ''}.`;
}

/**
 * `/mcp__<server>__<prompt> args` as the prompt's text: the words fill the prompt's arguments
 * in order (the last one takes the rest), and the messages the server returns become the
 * prompt. Undefined when the text names no prompt of a running server.
 */
export async function expandMcpPrompt(text: string, servers: LiveServer[], signal: AbortSignal): Promise<string | undefined> {
  const parsed = parsePromptCommand(text);
  if (!parsed) return undefined;
  const { server: serverPart, prompt: promptPart, rest } = parsed;
  for (const server of servers) {
    if (sanitizeNamePart(server.name) !== serverPart || !server.connection.offers.prompts) continue;
    const prompts = await server.connection.listPrompts(signal);
    const prompt = prompts.find((p) => sanitizeNamePart(p.name) === promptPart);
    if (!prompt) continue;
    const names = (prompt.arguments ?? []).map((a) => a.name);
    const words = rest.trim() === '' ? [] : rest.trim().split(/\s+/);
    const args: Record<string, string> = {};
    names.forEach((name, i) => {
      const value = i === names.length - 1 ? words.slice(i).join(' ') : words[i];
      if (value !== undefined && value !== '') args[name] = value;
    });
    const result = await server.connection.getPrompt(prompt.name, args, signal);
    return result.messages
      .map((message) => contentText(message.content))
      .filter((part) => part !== '')
      .join('\n\n');
  }
  return undefined;
}

function contentText(content: unknown): string {
  const blocks = Array.isArray(content) ? content : [content];
  return blocks
    .map((block: { type?: string; text?: string; resource?: { text?: string; uri?: string } }) => {
      if (block?.type === 'text' && typeof block.text === 'string') return block.text;
      if (block?.type === 'resource' && typeof block.resource?.text === 'string') return block.resource.text;
      return block?.type ? `[${block.type} content not shown]` : '';
    })
    .join('\n');
}
