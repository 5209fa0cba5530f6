import { describe, expect, it } from 'vitest';
import { parseSettings } from '../../../src/core/config/settings.js';
import { emptyUsage } from '../../../src/core/providers/types.js';
import { FALLBACK_MODEL, costOf, isKnownModel, modelInfo } from '../../../src/core/providers/models.js';

describe('modelInfo', () => {
  it('finds a family by the longest prefix of the id', () => {
    expect(modelInfo('claude-sonnet-4-5-20250929')).toMatchObject({ contextWindow: 200_000, inputPrice: 3, outputPrice: 15 });
    expect(modelInfo('claude-sonnet-4-20250514')).toMatchObject({ inputPrice: 3, cacheReadPrice: 0.3, cacheWritePrice: 3.75 });
    expect(modelInfo('claude-opus-4-1-20250805')).toMatchObject({ inputPrice: 15, outputPrice: 75, maxOutput: 32_000 });
    expect(modelInfo('claude-opus-4-5')).toMatchObject({ inputPrice: 5, outputPrice: 25, maxOutput: 64_000 });
    expect(modelInfo('claude-haiku-4-5-20251001')).toMatchObject({ inputPrice: 1, outputPrice: 5 });
    expect(modelInfo('gpt-4o-mini-2024-07-18')).toMatchObject({ inputPrice: 0.15, contextWindow: 128_000 });
    expect(modelInfo('gpt-4o-2024-08-06')).toMatchObject({ inputPrice: 2.5 });
    expect(modelInfo('gpt-4.1-mini')).toMatchObject({ inputPrice: 0.4, contextWindow: 1_047_576 });
    expect(modelInfo('gpt-5-mini')).toMatchObject({ inputPrice: 0.25 });
    expect(modelInfo('gpt-5')).toMatchObject({ inputPrice: 1.25, maxOutput: 128_000 });
    expect(modelInfo('o4-mini')).toMatchObject({ inputPrice: 1.1 });
  });

  it('falls back to a conservative window with no price for unknown models', () => {
    expect(modelInfo('llama-3-70b')).toEqual({ contextWindow: 128_000, maxOutput: 8_192 });
    expect(modelInfo('llama-3-70b')).toEqual(FALLBACK_MODEL);
    expect(isKnownModel('llama-3-70b')).toBe(false);
    expect(isKnownModel('claude-sonnet-4-5')).toBe(true);
    // Matching is by prefix of the id, never of a part inside it.
    expect(isKnownModel('my-gpt-4o')).toBe(false);
  });

  it('lets settings add a model and override single figures of a known one', () => {
    const extra = {
      'qwen-coder': { contextWindow: 32_000, maxOutput: 4_000, inputPrice: 0, outputPrice: 0 },
      'claude-sonnet-4-5': { contextWindow: 1_000_000 },
      local: { maxOutput: 2_000 },
    };
    expect(modelInfo('qwen-coder', extra)).toEqual({ contextWindow: 32_000, maxOutput: 4_000, inputPrice: 0, outputPrice: 0 });
    expect(modelInfo('claude-sonnet-4-5-20250929', extra)).toMatchObject({
      contextWindow: 1_000_000,
      maxOutput: 64_000,
      inputPrice: 3,
    });
    expect(modelInfo('local-7b', extra)).toEqual({ contextWindow: 128_000, maxOutput: 2_000 });
    expect(isKnownModel('local-7b', extra)).toBe(true);
    // Undefined figures in an entry change nothing.
    expect(modelInfo('gpt-4o', { 'gpt-4o': { contextWindow: undefined } }).contextWindow).toBe(128_000);
  });

  it('takes the models of a settings file as they parse', () => {
    const settings = parseSettings('{ "models": { "gpt-4o": { "contextWindow": 64000 } } }', 'settings.json');
    expect(modelInfo('gpt-4o', settings.models)).toMatchObject({ contextWindow: 64_000, inputPrice: 2.5 });
  });

  it('returns a copy the caller may change', () => {
    const info = modelInfo('gpt-4o');
    info.contextWindow = 1;
    expect(modelInfo('gpt-4o').contextWindow).toBe(128_000);
  });
});

describe('costOf', () => {
  it('prices every kind of token per million', () => {
    const usage = { input: 1_000_000, output: 1_000_000, cacheRead: 1_000_000, cacheWrite: 1_000_000 };
    expect(costOf(usage, modelInfo('claude-sonnet-4-5'))).toBeCloseTo(3 + 15 + 0.3 + 3.75, 10);
    expect(costOf({ ...emptyUsage(), input: 2_000, output: 500 }, modelInfo('gpt-4o'))).toBeCloseTo(0.005 + 0.005, 10);
    expect(costOf(emptyUsage(), modelInfo('gpt-4o'))).toBe(0);
  });

  it('is undefined when the price is unknown, and charges unknown cache prices as input', () => {
    expect(costOf({ ...emptyUsage(), input: 10 }, modelInfo('mystery'))).toBeUndefined();
    expect(costOf({ ...emptyUsage(), input: 10 }, { contextWindow: 1, maxOutput: 1, inputPrice: 1 })).toBeUndefined();
    const info = { contextWindow: 1, maxOutput: 1, inputPrice: 2, outputPrice: 4 };
    expect(costOf({ input: 0, output: 0, cacheRead: 1_000_000, cacheWrite: 1_000_000 }, info)).toBe(4);
  });
});
