import { describe, expect, it } from 'vitest';
import { definitionModelWarning, resolveModel } from '../../../src/core/agents/model-resolution.js';

const anthropic = { provider: 'anthropic' as const, parentModel: 'claude-sonnet-4-5' };
const openai = { provider: 'openai' as const, parentModel: 'gpt-5' };

describe('resolveModel', () => {
  it.each([
    [anthropic, undefined, 'claude-sonnet-4-5'],
    [anthropic, '', 'claude-sonnet-4-5'],
    [anthropic, 'inherit', 'claude-sonnet-4-5'],
    [anthropic, 'Inherit', 'claude-sonnet-4-5'],
    [anthropic, 'default', 'claude-sonnet-4-5'],
    [anthropic, 'sonnet', 'claude-sonnet-5'],
    [anthropic, 'opus', 'claude-opus-5-5'],
    [anthropic, 'HAIKU', 'claude-haiku-5-5'],
    [anthropic, 'sonnet[1m]', 'claude-sonnet-5'],
    [anthropic, 'opusplan', 'claude-opus-5-5'],
    [anthropic, 'claude-opus-4-5-20251101', 'claude-opus-4-5-20251101'],
    [openai, 'gpt-5-mini', 'gpt-5-mini'],
    [openai, 'o4-mini', 'o4-mini'],
    // OpenAI-compatible servers name their models freely.
    [openai, 'qwen3-coder:30b', 'qwen3-coder:30b'],
  ])('%o: %s runs on %s', (context, requested, model) => {
    expect(resolveModel(requested, context)).toEqual({ model });
  });

  it('never sends a model the provider cannot serve: the parent model, and a reason that says how to fix it', () => {
    expect(resolveModel('claude-opus-4-5', openai)).toEqual({
      model: 'gpt-5',
      refused:
        'model "claude-opus-4-5" is not served by the openai provider; running on gpt-5 instead (map "claude-opus-4-5" to a model of your server in modelAliases in settings)',
    });
    expect(resolveModel('sonnet', openai)).toEqual({
      model: 'gpt-5',
      refused:
        'model "sonnet" (sonnet means claude-sonnet-5) is not served by the openai provider; running on gpt-5 instead (map "sonnet" to a model of your server in modelAliases in settings)',
    });
    expect(resolveModel('gpt-5', anthropic).model).toBe('claude-sonnet-4-5');
    expect(resolveModel('gpt-5', anthropic).refused).toMatch(
      /not served by the anthropic provider.*name a claude-… model, or inherit/,
    );
    expect(resolveModel('llama3', anthropic).refused).toMatch(/not served by the anthropic provider/);
  });

  it("the user's aliases come first, for OpenAI-compatible servers and to override Claude Code's", () => {
    const local = { ...openai, parentModel: 'qwen3-coder', aliases: { sonnet: 'qwen3-coder:30b', fast: 'llama3.2:3b' } };
    expect(resolveModel('sonnet', local)).toEqual({ model: 'qwen3-coder:30b' });
    expect(resolveModel('Sonnet', local)).toEqual({ model: 'qwen3-coder:30b' });
    expect(resolveModel('fast', local)).toEqual({ model: 'llama3.2:3b' });
    expect(resolveModel('haiku', local).refused).toMatch(/haiku means claude-haiku-5-5/);
    // An alias that points at another provider's model is refused as well.
    expect(resolveModel('x', { ...local, aliases: { x: 'claude-haiku-4-5' } }).model).toBe('qwen3-coder');
  });

  it('is not fooled by keys of Object.prototype', () => {
    expect(resolveModel('constructor', openai)).toEqual({ model: 'constructor' });
    expect(resolveModel('__proto__', { ...openai, aliases: {} })).toEqual({ model: '__proto__' });
  });
});

describe('definitionModelWarning', () => {
  it('gathers every definition that cannot run its model into one line; none when all resolve', () => {
    const definitions = [
      { name: 'reviewer', model: 'sonnet' },
      { name: 'writer', model: 'sonnet' },
      { name: 'planner', model: 'claude-opus-4-5' },
      { name: 'plain', model: 'inherit' },
    ];
    expect(definitionModelWarning(definitions, anthropic)).toBeUndefined();
    const line = definitionModelWarning(definitions, openai)!;
    expect(line.split('\n')).toHaveLength(1);
    expect(line).toMatch(/^agent files: model "sonnet" .*: reviewer, writer; model "claude-opus-4-5" .*: planner$/);
  });
});
