import { describe, expect, it } from 'vitest';
import { withFallbackModel } from '../../../src/core/providers/fallback-model.js';
import { type ModelRequest, ProviderError, type StreamEvent, type StreamFn } from '../../../src/core/providers/types.js';

const request = (model: string): ModelRequest => ({ model, system: '', messages: [], tools: [], maxTokens: 100 });

/** A provider whose `overloaded` models answer 529; every call's model is recorded. */
function provider(overloaded: Set<string>) {
  const calls: string[] = [];
  const stream: StreamFn = async function* (req): AsyncGenerator<StreamEvent> {
    calls.push(req.model);
    if (overloaded.has(req.model)) throw new ProviderError('Overloaded', { status: 529 });
    yield { type: 'text_delta', text: `from ${req.model}` };
  };
  return { stream, calls };
}

async function text(stream: StreamFn, model: string): Promise<string> {
  let out = '';
  for await (const event of stream(request(model), new AbortController().signal))
    if (event.type === 'text_delta') out += event.text;
  return out;
}

describe('withFallbackModel', () => {
  it('sends the overloaded model to the fallback from then on, and any other model as asked', async () => {
    const { stream, calls } = provider(new Set(['claude-opus-5-5']));
    const notes: string[] = [];
    const wrapped = withFallbackModel(stream, 'claude-haiku-5-5', (note) => notes.push(note));
    expect(await text(wrapped, 'claude-opus-5-5')).toBe('from claude-haiku-5-5');
    expect(await text(wrapped, 'claude-opus-5-5')).toBe('from claude-haiku-5-5');
    // A sub-agent's own model, or the one /model switched to, is not the overloaded one.
    expect(await text(wrapped, 'claude-sonnet-5')).toBe('from claude-sonnet-5');
    expect(calls).toEqual(['claude-opus-5-5', 'claude-haiku-5-5', 'claude-haiku-5-5', 'claude-sonnet-5']);
    expect(notes).toEqual([expect.stringContaining('using the fallback model claude-haiku-5-5')]);
  });

  it('does not fall back on other errors', async () => {
    const stream: StreamFn = async function* (): AsyncGenerator<StreamEvent> {
      yield* [];
      throw new ProviderError('bad request', { status: 400 });
    };
    const wrapped = withFallbackModel(stream, 'claude-haiku-5-5', () => {});
    await expect(text(wrapped, 'claude-opus-5-5')).rejects.toThrow('bad request');
  });
});
