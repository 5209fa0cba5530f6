import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { ContentBlock, Message } from '../../core/providers/types.js';
import { oneLine } from '../format.js';

/** The end of a sub-agent's transcript file, one line per message. */
export interface AgentTail {
  lines: string[];
  /** Why there is nothing to show (no file yet, unreadable). */
  note?: string;
}

const MAX_BYTES = 256 * 1024;

/**
 * Reads the last `maxMessages` messages of a JSONL transcript. Only the file's last
 * 256 KiB is read, so a long-running job's transcript costs the same to show each time.
 */
export function readAgentTail(file: string, maxMessages = 20): AgentTail {
  let text: string;
  try {
    text = readEnd(file, MAX_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { lines: [], note: code === 'ENOENT' ? 'no transcript yet' : `cannot read ${file}: ${(error as Error).message}` };
  }
  const messages: Message[] = [];
  for (const line of text.split('\n')) {
    const record = parse(line);
    if (record?.type === 'message' && record.message) messages.push(record.message);
  }
  return { lines: messages.slice(-maxMessages).map(describeMessage) };
}

/** `assistant: I found… · → read_file src/x.ts`, `tool result: export function…`. */
export function describeMessage(message: Message): string {
  const parts = message.content.map(describeBlock).filter((part) => part !== '');
  const role = message.content.every((b) => b.type === 'tool_result') ? 'result' : message.role;
  return `${role}: ${parts.join(' · ') || '(empty)'}`;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return oneLine(block.text);
    case 'thinking':
      return '(thinking)';
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

function parse(line: string): { type?: string; message?: Message } | undefined {
  if (!line.trim()) return undefined;
  try {
    return JSON.parse(line) as { type?: string; message?: Message };
  } catch {
    // The first line of a tail read usually starts mid-record; a cut last line is expected too.
    return undefined;
  }
}

function readEnd(file: string, maxBytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}
