import type { Usage } from './types.js';

/** What outrider knows of a model. Prices are dollars per million tokens; absent means unknown. */
export interface ModelInfo {
  contextWindow: number;
  maxOutput: number;
  inputPrice?: number;
  outputPrice?: number;
  cacheReadPrice?: number;
  cacheWritePrice?: number;
}

/** Figures for a model we know nothing of: small enough to be safe almost anywhere. */
export const FALLBACK_MODEL: ModelInfo = { contextWindow: 128_000, maxOutput: 8_192 };

const anthropic = (
  contextWindow: number,
  maxOutput: number,
  inputPrice: number,
  outputPrice: number,
  cacheRead: number,
  cacheWrite: number,
): ModelInfo => ({
  contextWindow,
  maxOutput,
  inputPrice,
  outputPrice,
  cacheReadPrice: cacheRead,
  cacheWritePrice: cacheWrite,
});

// OpenAI bills no premium for writing its automatic cache, so a cache write costs input.
const openai = (contextWindow: number, maxOutput: number, inputPrice: number, outputPrice: number, cacheRead: number) =>
  anthropic(contextWindow, maxOutput, inputPrice, outputPrice, cacheRead, inputPrice);

/**
 * Known models, matched by the longest key that prefixes the model id, so dated ids
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find their family. Figures from
 * the vendors' model and pricing pages (December 2026). Windows that need a beta header
 * to pass 200k are listed at 200k: compacting early is safe, late is not. Cache writes
 * are Anthropic's 5-minute rate, the one outrider's cache control uses.
 */
export const KNOWN_MODELS: Readonly<Record<string, ModelInfo>> = {
  // Opus 4.0 and 4.1; Opus 4.5 onwards cost a third of that.
  'claude-opus-4': anthropic(200_000, 32_000, 15, 75, 1.5, 18.75),
  'claude-opus-4-5': anthropic(200_000, 64_000, 5, 25, 0.5, 6.25),
  'claude-opus-4-6': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25),
  'claude-opus-4-7': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25),
  'claude-opus-4-8': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25),
  'claude-sonnet-4': anthropic(200_000, 64_000, 3, 15, 0.3, 3.75),
  'claude-sonnet-4-6': anthropic(1_000_000, 64_000, 3, 15, 0.3, 3.75),
  'claude-haiku-4': anthropic(200_000, 64_000, 1, 5, 0.1, 1.25),
  'claude-opus-5': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25),
  'claude-opus-5-5': anthropic(1_000_000, 128_000, 4, 20, 0.2, 5),
  'claude-sonnet-5': anthropic(1_000_000, 128_000, 2, 10, 0.2, 2.5),
  // Haiku 5.5 costs five times more on prompts over 100k tokens; this is the lower band.
  'claude-haiku-5-5': anthropic(1_000_000, 128_000, 0.1, 0.5, 0.01, 0.125),
  'gpt-4.1': openai(1_047_576, 32_768, 2, 8, 0.5),
  'gpt-4.1-mini': openai(1_047_576, 32_768, 0.4, 1.6, 0.1),
  'gpt-4o': openai(128_000, 16_384, 2.5, 10, 1.25),
  'gpt-4o-mini': openai(128_000, 16_384, 0.15, 0.6, 0.075),
  // GPT-5's 400k window holds input and output together; at most 272k of it is input.
  'gpt-5': openai(400_000, 128_000, 1.25, 10, 0.125),
  'gpt-5-mini': openai(400_000, 128_000, 0.25, 2, 0.025),
  o3: openai(200_000, 100_000, 2, 8, 0.5),
  'o4-mini': openai(200_000, 100_000, 1.1, 4.4, 0.275),
};

/**
 * What is known of `model`: the known family's figures (or the fallback), overlaid by
 * the settings' `models` entry for it (exact id first, else the longest prefix), so a
 * setting may give only the figure it changes.
 */
export function modelInfo(model: string, extra?: Readonly<Record<string, Partial<ModelInfo>>>): ModelInfo {
  const base = KNOWN_MODELS[longestPrefix(KNOWN_MODELS, model) ?? ''] ?? FALLBACK_MODEL;
  const key = extra && (Object.hasOwn(extra, model) ? model : longestPrefix(extra, model));
  const override = key === undefined ? undefined : extra?.[key];
  if (!override) return { ...base };
  const defined = Object.fromEntries(Object.entries(override).filter(([, v]) => v !== undefined));
  return { ...base, ...defined };
}

/** True when the table or the settings name this model (else the fallback figures apply). */
export function isKnownModel(model: string, extra?: Readonly<Record<string, Partial<ModelInfo>>>): boolean {
  return longestPrefix(KNOWN_MODELS, model) !== undefined || (extra !== undefined && longestPrefix(extra, model) !== undefined);
}

/**
 * Dollars spent on `usage`, or undefined when the input or output price is unknown.
 * A missing cache price is charged as input, which overstates rather than hides cost.
 */
export function costOf(usage: Usage, info: ModelInfo): number | undefined {
  const { inputPrice, outputPrice } = info;
  if (inputPrice === undefined || outputPrice === undefined) return undefined;
  const cacheRead = info.cacheReadPrice ?? inputPrice;
  const cacheWrite = info.cacheWritePrice ?? inputPrice;
  return (
    (usage.input * inputPrice + usage.output * outputPrice + usage.cacheRead * cacheRead + usage.cacheWrite * cacheWrite) /
    1_000_000
  );
}

function longestPrefix(table: Readonly<Record<string, unknown>>, model: string): string | undefined {
  let best: string | undefined;
  for (const key of Object.keys(table)) {
    if (model.startsWith(key) && (best === undefined || key.length > best.length)) best = key;
  }
  return best;
}
