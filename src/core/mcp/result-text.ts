/** One block of an MCP tool result, as the protocol gives it (only the fields read here). */
interface ContentBlock {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** What a `tools/call` returns (the fields read here). */
export interface CallResult {
  content?: unknown;
  structuredContent?: unknown;
  isError?: boolean;
  /** Servers of the 2024-10 protocol answer with this instead of `content`. */
  toolResult?: unknown;
}

/**
 * An MCP tool result as text for the model. Tool results are text only today, so images and
 * audio are named with their type and size (`[image: image/png, 1234 bytes]`), embedded text
 * resources keep their text, and a result with only structured content gives its JSON.
 */
export function resultText(result: CallResult): string {
  const blocks = Array.isArray(result.content) ? (result.content as ContentBlock[]) : [];
  const parts = blocks.map(blockText).filter((part) => part !== '');
  if (parts.length === 0 && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  if (parts.length === 0 && result.toolResult !== undefined) return JSON.stringify(result.toolResult);
  return parts.join('\n');
}

function blockText(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data)} bytes]`;
    case 'resource': {
      const resource = block.resource ?? {};
      if (typeof resource.text === 'string') return `[resource: ${resource.uri ?? 'no uri'}]\n${resource.text}`;
      return `[resource: ${resource.uri ?? 'no uri'}, ${resource.mimeType ?? 'unknown type'}, ${base64Bytes(resource.blob)} bytes]`;
    }
    case 'resource_link':
      return `[resource link: ${block.name ?? ''} ${block.uri ?? ''}]`.replace('  ', ' ');
    default:
      return `[${block.type} content]`;
  }
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: string | undefined): number {
  if (!data) return 0;
  const clean = data.replace(/\s/g, '');
  const padding = clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0;
  return Math.floor((clean.length * 3) / 4) - padding;
}
