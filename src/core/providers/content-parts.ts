/** A user message with images as the OpenAI APIs take it: text and image parts in their order. */
import type { ContentBlock } from './types.js';

/**
 * `blocks`' text and images as parts, in order: adjacent texts joined into one part (as a message
 * without images sends them), each image its own part, made by `text` and `image` (given the image as a data URL).
 */
export function orderedParts<P>(
  blocks: readonly ContentBlock[],
  make: { text: (text: string) => P; image: (dataUrl: string) => P },
): P[] {
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
    parts.push(make.image(`data:${block.mediaType};base64,${block.data}`));
  }
  flush();
  return parts;
}
