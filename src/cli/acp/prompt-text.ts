/**
 * An ACP prompt as outrider's model reads it: text as written, a linked file named by its path, an
 * embedded resource (a file or selection the editor attached) as a fenced block with where it
 * comes from; images (and an embedded binary resource that is an image) attached, each checked
 * by the core (type from its bytes, size, count). Audio is refused: `initialize` does not offer it.
 */
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk/unstable';
import { type ImageBlock, ImageError, type ImageInput, imageBlocks } from '../../core/index.js';

/** A prompt block outrider cannot take; its message is the JSON-RPC error's. */
export class UnsupportedContentError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsupportedContentError';
  }
}

/** A prompt's text and its images, checked. */
export interface PromptContent {
  text: string;
  /** The user's own text and linked paths, without the files embedded in it (where `@shot.png` attaches). */
  typed: string;
  images: ImageBlock[];
}

/** The prompt `blocks` make; UnsupportedContentError for audio, an unknown block or an image no model takes. */
export function promptContent(blocks: readonly ContentBlock[]): PromptContent {
  const parts: string[] = [];
  const typed: string[] = [];
  const images: ImageInput[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        typed.push(block.text);
        break;
      case 'resource_link':
        parts.push(`@${pathOf(block.uri)}`);
        typed.push(`@${pathOf(block.uri)}`);
        break;
      case 'resource': {
        const { resource } = block;
        if ('text' in resource) {
          const fence = resource.text.includes('```') ? '~~~~' : '```';
          parts.push(`\n${fence} ${pathOf(resource.uri)}\n${resource.text}${resource.text.endsWith('\n') ? '' : '\n'}${fence}\n`);
        } else if (/^image\/(png|jpe?g|gif|webp)$/i.test(resource.mimeType ?? '')) {
          // Not `@path`: that would attach the file a second time (commands/prompt-images.ts).
          parts.push(`${pathOf(resource.uri)} (image, attached)`);
          images.push({ data: resource.blob, mediaType: resource.mimeType ?? undefined });
        } else {
          parts.push(`@${pathOf(resource.uri)} (binary, not attached)`);
        }
        break;
      }
      case 'image':
        images.push({ data: block.data, mediaType: block.mimeType });
        break;
      case 'audio':
        throw new UnsupportedContentError('outrider takes no audio: send its transcript as text');
      default:
        throw new UnsupportedContentError(`unknown prompt content type "${(block as { type: string }).type}"`);
    }
  }
  const text = parts.join(' ').trim() === '' ? '' : joinParts(parts);
  try {
    return { text, typed: joinParts(typed), images: imageBlocks(images) };
  } catch (error) {
    if (error instanceof ImageError) throw new UnsupportedContentError(error.message);
    throw error;
  }
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
