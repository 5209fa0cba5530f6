/**
 * An ACP prompt as the text outrider's model reads: text as written, a linked file named by its
 * path, an embedded resource (a file or selection the editor attached) as a fenced block with
 * where it comes from. Images and audio are refused: outrider's history holds text only, so
 * `initialize` does not offer them.
 */
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';

/** A prompt block outrider cannot take; its message is the JSON-RPC error's. */
export class UnsupportedContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedContentError';
  }
}

export function promptText(blocks: readonly ContentBlock[]): string {
  const parts: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'resource_link':
        parts.push(`@${pathOf(block.uri)}`);
        break;
      case 'resource': {
        const { resource } = block;
        if ('text' in resource) {
          const fence = resource.text.includes('```') ? '~~~~' : '```';
          parts.push(`\n${fence} ${pathOf(resource.uri)}\n${resource.text}${resource.text.endsWith('\n') ? '' : '\n'}${fence}\n`);
        } else {
          parts.push(`@${pathOf(resource.uri)} (binary, not attached)`);
        }
        break;
      }
      case 'image':
      case 'audio':
        throw new UnsupportedContentError(
          `outrider takes text prompts only (no ${block.type}): attach the file as a resource or name its path`,
        );
      default:
        throw new UnsupportedContentError(`unknown prompt content type "${(block as { type: string }).type}"`);
    }
  }
  return parts.join(' ').trim() === '' ? '' : joinParts(parts);
}

/** Adjacent text parts joined as the user would have typed them: a space between words, none around block breaks. */
function joinParts(parts: string[]): string {
  let out = '';
  for (const part of parts) {
    if (out && !out.endsWith('\n') && !part.startsWith('\n') && !/\s$/.test(out) && !/^\s/.test(part)) out += ' ';
    out += part;
  }
  return out;
}

/** A file URI as a path; any other URI as written. */
function pathOf(uri: string): string {
  if (!uri.startsWith('file:')) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}
