import type { Usage } from './types.js';

/** What outrider knows of a model. Prices are dollars per million tokens; absent means unknown. */
export interface ModelInfo {
  contextWindow: number;
  maxOutput: number;
  inputPrice?: number;
  outputPrice?: number;
  cacheReadPrice?: number;
  cacheWritePrice?: number;
  /**
   * OpenAI: the API the model is meant for, Responses (reasoning items carried between turns) or
   * Chat Completions; absent: chat. `openai.api` in settings overrides it (openaiApiFor).
   */
  api?: 'responses' | 'chat';
  /**
   * How the model takes an effort (effort.ts): Anthropic's extended thinking with a token budget,
   * Anthropic's adaptive thinking with its effort parameter, OpenAI's reasoning effort (`-xhigh`:
   * `max` is sent as `xhigh`). Absent: none, and an effort asked for is not sent.
   */
  reasoning?: 'thinking-budget' | 'thinking-effort' | 'openai' | 'openai-xhigh';
  /** It takes images (a user's, read_file's); absent: as `takesImages` decides for its endpoint. */
  images?: boolean;
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
  reasoning: ModelInfo['reasoning'] = 'thinking-budget',
): ModelInfo => ({
  contextWindow,
  maxOutput,
  inputPrice,
  outputPrice,
  cacheReadPrice: cacheRead,
  cacheWritePrice: cacheWrite,
  images: true,
  ...(reasoning ? { reasoning } : {}),
});

// OpenAI bills no premium for writing its automatic cache, so a cache write costs input.
const openai = (
  contextWindow: number,
  maxOutput: number,
  prices: [input: number, output: number, cacheRead: number],
  more: Pick<ModelInfo, 'api' | 'reasoning' | 'images'> = {},
): ModelInfo => ({
  contextWindow,
  maxOutput,
  inputPrice: prices[0],
  outputPrice: prices[1],
  cacheReadPrice: prices[2],
  cacheWritePrice: prices[0],
  images: true,
  ...more,
});

/** OpenAI's reasoning and codex models: meant for the Responses API, with a reasoning effort. */
const reasoner = (reasoning: 'openai' | 'openai-xhigh' = 'openai') => ({ api: 'responses', reasoning }) as const;

/**
 * Known models, matched by the longest key that prefixes the model id, so dated ids
 * (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`) find their family. Figures from
 * the vendors' model and pricing pages (December 2026). Windows that need a beta header
 * to pass 200k are listed at 200k: compacting early is safe, late is not. Cache writes
 * are Anthropic's 5-minute rate, the one outrider's cache control uses. Which API an OpenAI
 * model is meant for (`api`), how each model takes an effort (`reasoning`), and the figures of
 * the codex and GPT-5.1 to 5.5 entries: read 2026-12-04 (OpenAI's models and pricing pages as
 * published in May 2026). A GPT-5 window holds input and output together; the larger windows of
 * GPT-5.4 and 5.5 are listed at 400k, as their codex variants have.
 */
export const KNOWN_MODELS: Readonly<Record<string, ModelInfo>> = {
  // Opus 4.0 and 4.1; Opus 4.5 onwards cost a third of that. Up to 4.5: thinking with a budget;
  // from 4.6: adaptive thinking and the effort parameter.
  'claude-opus-4': anthropic(200_000, 32_000, 15, 75, 1.5, 18.75),
  'claude-opus-4-5': anthropic(200_000, 64_000, 5, 25, 0.5, 6.25),
  'claude-opus-4-6': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25, 'thinking-effort'),
  'claude-opus-4-7': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25, 'thinking-effort'),
  'claude-opus-4-8': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25, 'thinking-effort'),
  'claude-sonnet-4': anthropic(200_000, 64_000, 3, 15, 0.3, 3.75),
  'claude-sonnet-4-6': anthropic(1_000_000, 64_000, 3, 15, 0.3, 3.75, 'thinking-effort'),
  'claude-haiku-4': anthropic(200_000, 64_000, 1, 5, 0.1, 1.25),
  'claude-opus-5': anthropic(1_000_000, 128_000, 5, 25, 0.5, 6.25, 'thinking-effort'),
  'claude-opus-5-5': anthropic(1_000_000, 128_000, 4, 20, 0.2, 5, 'thinking-effort'),
  'claude-sonnet-5': anthropic(1_000_000, 128_000, 2, 10, 0.2, 2.5, 'thinking-effort'),
  // Haiku 5.5 costs five times more on prompts over 100k tokens; this is the lower band.
  'claude-haiku-5-5': anthropic(1_000_000, 128_000, 0.1, 0.5, 0.01, 0.125, 'thinking-effort'),
  'gpt-4.1': openai(1_047_576, 32_768, [2, 8, 0.5]),
  'gpt-4.1-mini': openai(1_047_576, 32_768, [0.4, 1.6, 0.1]),
  'gpt-4o': openai(128_000, 16_384, [2.5, 10, 1.25]),
  'gpt-4o-mini': openai(128_000, 16_384, [0.15, 0.6, 0.075]),
  // GPT-5's 400k window holds input and output together; at most 272k of it is input.
  'gpt-5': openai(400_000, 128_000, [1.25, 10, 0.125], reasoner()),
  'gpt-5-mini': openai(400_000, 128_000, [0.25, 2, 0.025], reasoner()),
  'gpt-5-nano': openai(400_000, 128_000, [0.05, 0.4, 0.005], reasoner()),
  // ChatGPT's GPT-5: no reasoning (and no encrypted reasoning to ask for), Chat Completions.
  'gpt-5-chat': openai(128_000, 16_384, [1.25, 10, 0.125], { api: 'chat' }),
  'gpt-5-codex': openai(400_000, 128_000, [1.25, 10, 0.125], reasoner()),
  'gpt-5.1': openai(400_000, 128_000, [1.25, 10, 0.125], reasoner()),
  'gpt-5.1-codex': openai(400_000, 128_000, [1.25, 10, 0.125], reasoner()),
  'gpt-5.1-codex-mini': openai(400_000, 128_000, [0.25, 2, 0.025], reasoner()),
  'gpt-5.1-codex-max': openai(400_000, 128_000, [1.25, 10, 0.125], reasoner('openai-xhigh')),
  'gpt-5.2': openai(400_000, 128_000, [1.75, 14, 0.175], reasoner('openai-xhigh')),
  'gpt-5.2-codex': openai(400_000, 128_000, [1.75, 14, 0.175], reasoner('openai-xhigh')),
  'gpt-5.3-codex': openai(400_000, 128_000, [1.75, 14, 0.175], reasoner('openai-xhigh')),
  'gpt-5.4': openai(400_000, 128_000, [2.5, 15, 0.25], reasoner('openai-xhigh')),
  'gpt-5.5': openai(400_000, 128_000, [5, 30, 0.5], reasoner('openai-xhigh')),
  'codex-mini': openai(200_000, 100_000, [1.5, 6, 0.375], reasoner()),
  o1: openai(200_000, 100_000, [15, 60, 7.5], reasoner()),
  o3: openai(200_000, 100_000, [2, 8, 0.5], reasoner()),
  // Text only: o3-mini takes no images.
  'o3-mini': openai(200_000, 100_000, [1.1, 4.4, 0.55], { ...reasoner(), images: false }),
  'o4-mini': openai(200_000, 100_000, [1.1, 4.4, 0.275], reasoner()),
};

/**
 * Which OpenAI API a request for `model` goes to: `api` (the `openai.api` setting) when set;
 * else a server other than OpenAI's own (Ollama, vLLM, llama.cpp, OpenRouter …) gets Chat
 * Completions, which they all speak; else the catalogue's word for the model (chat when unknown).
 */
export function openaiApiFor(model: string, options: { api?: 'responses' | 'chat'; baseURL?: string }): 'responses' | 'chat' {
  if (options.api) return options.api;
  if (options.baseURL && !isOpenAIHost(options.baseURL)) return 'chat';
  return modelInfo(model).api ?? 'chat';
}

/**
 * Whether a request for `model` may carry images: the settings' `models` entry's `images`, else
 * the catalogue's word; for a model neither knows, yes through the Anthropic API (every Claude
 * model takes images, behind a gateway too) and OpenAI's own servers, and no through any other
 * OpenAI-compatible server (Ollama, vLLM, llama.cpp: most local models take none, and refuse a
 * whole request that holds one).
 */
export function takesImages(
  model: string,
  options: { provider: 'anthropic' | 'openai'; baseURL?: string; models?: Readonly<Record<string, Partial<ModelInfo>>> },
): boolean {
  const said = modelInfo(model, options.models).images;
  if (said !== undefined) return said;
  return options.provider === 'anthropic' || !options.baseURL || isOpenAIHost(options.baseURL);
}

function isOpenAIHost(url: string): boolean {
  try {
    const host = new URL(url).hostname.toLowerCase();
    // api.openai.com, and its regional hosts (us.api.openai.com).
    return host === 'openai.com' || host.endsWith('.openai.com');
  } catch {
    return false;
  }
}

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
