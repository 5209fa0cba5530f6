/**
 * `--include-partial-messages`: the Messages API's stream events (`message_start`,
 * `content_block_start` / `_delta` / `_stop`, `message_delta`, `message_stop`) rebuilt from the
 * loop's deltas, as Claude Code writes them in `stream_event` lines. Text and thinking stream as
 * they come; a tool call's input is one `input_json_delta` when its message ends.
 */
import { randomUUID } from 'node:crypto';
import type { LoopEvent } from '../core/index.js';
import { apiUsage } from './stream-json-messages.js';

interface Source {
  started: boolean;
  index: number;
  open: 'text' | 'thinking' | undefined;
}

/** Feed it every loop event with its job (undefined: the parent); it writes the stream events. */
export function partialMessages(
  info: { model: string },
  write: (event: object, jobId: string | undefined) => void,
): (event: LoopEvent, jobId: string | undefined) => void {
  const sources = new Map<string, Source>();
  const sourceOf = (jobId: string | undefined): Source => {
    const key = jobId ?? '';
    let source = sources.get(key);
    if (!source) sources.set(key, (source = { started: false, index: 0, open: undefined }));
    return source;
  };
  const start = (source: Source, jobId: string | undefined) => {
    if (source.started) return;
    source.started = true;
    source.index = 0;
    source.open = undefined;
    write(
      {
        type: 'message_start',
        message: {
          id: `msg_${randomUUID().replace(/-/g, '')}`,
          type: 'message',
          role: 'assistant',
          model: info.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: apiUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
        },
      },
      jobId,
    );
  };
  const close = (source: Source, jobId: string | undefined) => {
    if (source.open === undefined) return;
    write({ type: 'content_block_stop', index: source.index }, jobId);
    source.index += 1;
    source.open = undefined;
  };
  const delta = (jobId: string | undefined, kind: 'text' | 'thinking', text: string) => {
    const source = sourceOf(jobId);
    start(source, jobId);
    if (source.open !== kind) {
      close(source, jobId);
      source.open = kind;
      const block = kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' };
      write({ type: 'content_block_start', index: source.index, content_block: block }, jobId);
    }
    const change = kind === 'text' ? { type: 'text_delta', text } : { type: 'thinking_delta', thinking: text };
    write({ type: 'content_block_delta', index: source.index, delta: change }, jobId);
  };

  return (event, jobId) => {
    switch (event.type) {
      case 'turn_start':
        sourceOf(jobId).started = false;
        return start(sourceOf(jobId), jobId);
      case 'text_delta':
        return delta(jobId, 'text', event.text);
      case 'thinking_delta':
        return delta(jobId, 'thinking', event.text);
      case 'message_end': {
        const source = sourceOf(jobId);
        start(source, jobId);
        close(source, jobId);
        for (const block of event.message.content) {
          if (block.type !== 'tool_use') continue;
          write(
            {
              type: 'content_block_start',
              index: source.index,
              content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
            },
            jobId,
          );
          write(
            {
              type: 'content_block_delta',
              index: source.index,
              delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) },
            },
            jobId,
          );
          write({ type: 'content_block_stop', index: source.index }, jobId);
          source.index += 1;
        }
        write(
          {
            type: 'message_delta',
            delta: { stop_reason: event.stopReason === 'other' ? null : event.stopReason, stop_sequence: null },
            usage: { output_tokens: 0 },
          },
          jobId,
        );
        write({ type: 'message_stop' }, jobId);
        source.started = false;
        return;
      }
      default:
        return;
    }
  };
}
