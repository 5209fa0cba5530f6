import { type ContentBlock, imageLabel, imageSummary, type Message, oneLine } from '../../core/index.js';

/** `assistant: I found… · → read_file src/x.ts`, `tool result: export function…`. */
export function describeMessage(message: Message): string {
  const parts = message.content.map(describeBlock).filter((part) => part !== '');
  const onlyResults = message.content.length > 0 && message.content.every((b) => b.type === 'tool_result');
  const role = onlyResults ? 'result' : message.role;
  return `${role}: ${parts.join(' · ') || '(empty)'}`;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return oneLine(block.text);
    case 'thinking':
      return '(thinking)';
    case 'image':
      return imageLabel(imageSummary(block));
    case 'tool_use':
      return `→ ${block.name} ${oneLine(JSON.stringify(block.input ?? {}))}`;
    case 'tool_result':
      return `${block.isError ? '✗ ' : ''}${oneLine(block.content)}`;
    default: {
      const unhandled: never = block;
      return String(unhandled);
    }
  }
}
