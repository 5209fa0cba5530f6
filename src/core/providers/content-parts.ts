/** A user message with images as the OpenAI APIs take it: text and image parts in their order. */
import type { ContentBlock, ImageBlock } from './types.js';

/** How one API spells a text part and an image part (given the image as a data URL). */
export interface PartMaker<P> {
  text: (text: string) => P;
  image: (dataUrl: string) => P;
}

/** An image as a data URL, the form both OpenAI APIs take inline. */
export function dataUrl(image: ImageBlock): string {
  return `data:${image.mediaType};base64,${image.data}`;
}

/**
 * `blocks`' text and images as parts, in order: adjacent texts joined into one part (as a message
 * without images sends them), each image its own part, made by `text` and `image` (given the image as a data URL).
 */
export function orderedParts<P>(blocks: readonly ContentBlock[], make: PartMaker<P>): P[] {
  const parts: P[] = [];
  let texts: string[] = [];
  const flush = () => {
    if (texts.length > 0) parts.push(make.text(texts.join('\n\n')));
    texts = [];
  };
  for (const block of blocks) {
    if (block.type === 'text' && block.text !== '') texts.push(block.text);
    if (block.type !== 'image') continue;
    flush();
    parts.push(make.image(dataUrl(block)));
  }
  flush();
  return parts;
}

/**
 * The images of `blocks`' tool results as parts of a user message, each result's after a line
 * naming its call: Chat Completions' tool messages take text alone, so the images follow them.
 */
export function toolImageParts<P>(blocks: readonly ContentBlock[], make: PartMaker<P>): P[] {
  return blocks.flatMap((block) => {
    if (block.type !== 'tool_result' || !block.images?.length) return [];
    const what = block.images.length === 1 ? 'The image' : 'The images';
    return [make.text(`${what} the tool call ${block.toolUseId} returned:`), ...block.images.map((i) => make.image(dataUrl(i)))];
  });
}
