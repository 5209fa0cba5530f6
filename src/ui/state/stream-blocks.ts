/**
 * Streamed text split where a Markdown block has surely ended: at the last blank line outside
 * a fenced code block. What comes before prints once (it will not change); the rest stays live.
 */
export function splitFinishedBlocks(text: string): { done: string; rest: string } {
  let fence: string | undefined;
  let lastBreak = -1;
  let offset = 0;
  const lines = text.split('\n');
  // The last line may still be growing: it never closes a fence or a block.
  for (let i = 0; i < lines.length - 1; i += 1) {
    const line = lines[i]!;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
      fence = fence === undefined ? marker : undefined;
    } else if (fence === undefined && line.trim() === '' && i > 0 && lines[i - 1]!.trim() !== '') {
      lastBreak = offset;
    }
    offset += line.length + 1;
  }
  if (lastBreak <= 0) return { done: '', rest: text };
  return { done: text.slice(0, lastBreak).replace(/\n+$/, ''), rest: text.slice(lastBreak).replace(/^\n+/, '') };
}
