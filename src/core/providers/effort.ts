/**
 * Reasoning effort (`--effort`, the `effort` setting, an agent file's `effort`) as each API takes
 * it: Anthropic's extended thinking with a token budget, or its adaptive thinking with the effort
 * parameter; OpenAI's `reasoning.effort` (Responses) or `reasoning_effort` (Chat). The catalogue
 * (models.ts) says which a model takes; a model it names for none is sent none.
 */
import { modelInfo } from './models.js';
import { type Effort, EFFORT_LEVELS, type ProviderName, type StreamFn } from './types.js';

/** Anthropic's thinking budget for each level, in tokens (thinking tokens are billed as output). */
export const THINKING_BUDGETS: Readonly<Record<Effort, number>> = Object.freeze({
  low: 4_096,
  medium: 10_000,
  high: 20_000,
  max: 32_000,
});

/** The least budget Anthropic takes. */
const MIN_BUDGET = 1_024;

/** What a request body carries for an effort on Anthropic: thinking, maybe the effort parameter, and its max_tokens. */
export interface AnthropicThinking {
  thinking: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  output_config?: { effort: Effort };
  max_tokens: number;
}

/**
 * The thinking parameters for `effort` on `model`, or undefined when it takes none. With a
 * budget, max_tokens grows by it (thinking counts toward max_tokens, which must stay above the
 * budget) up to the model's output cap, and the answer keeps at least what it had, up to 8k.
 */
export function anthropicThinking(model: string, effort: Effort | undefined, maxTokens: number): AnthropicThinking | undefined {
  if (!effort) return undefined;
  const info = modelInfo(model);
  if (info.reasoning === 'thinking-effort') {
    return { thinking: { type: 'adaptive' }, output_config: { effort }, max_tokens: maxTokens };
  }
  if (info.reasoning !== 'thinking-budget') return undefined;
  const total = Math.min(info.maxOutput, maxTokens + THINKING_BUDGETS[effort]);
  const budget = Math.min(THINKING_BUDGETS[effort], total - Math.min(maxTokens, 8_192));
  if (budget < MIN_BUDGET) return undefined;
  return { thinking: { type: 'enabled', budget_tokens: budget }, max_tokens: total };
}

export type OpenAIEffort = 'low' | 'medium' | 'high' | 'xhigh';

/** OpenAI's word for `effort` on `model` (`max` is `xhigh` where the model takes it), or undefined when it takes none. */
export function openaiEffort(model: string, effort: Effort | undefined): OpenAIEffort | undefined {
  if (!effort) return undefined;
  const { reasoning } = modelInfo(model);
  if (reasoning !== 'openai' && reasoning !== 'openai-xhigh') return undefined;
  if (effort !== 'max') return effort;
  return reasoning === 'openai-xhigh' ? 'xhigh' : 'high';
}

/** True when the catalogue says `model` reasons with OpenAI's reasoning items (their encrypted content is asked for). */
export function openaiReasons(model: string): boolean {
  const { reasoning } = modelInfo(model);
  return reasoning === 'openai' || reasoning === 'openai-xhigh';
}

/** True when an effort for `model` is sent on `provider`'s API. */
export function takesEffort(provider: ProviderName, model: string): boolean {
  const { reasoning } = modelInfo(model);
  if (provider === 'anthropic') return reasoning === 'thinking-budget' || reasoning === 'thinking-effort';
  return reasoning === 'openai' || reasoning === 'openai-xhigh';
}

/** The one line said when an effort was asked for a model that takes none (it is not sent). */
export function effortNotice(effort: Effort, model: string): string {
  return `effort ${effort}: ${model} takes no reasoning effort here (not in outrider's model catalogue as one that does); it is not sent`;
}

/** `stream` with every request carrying `effort` (a job's over the session's); the same stream when there is none. */
export function withEffort(stream: StreamFn, effort: Effort | undefined): StreamFn {
  if (!effort) return stream;
  return (request, signal) => stream(request.effort === effort ? request : { ...request, effort }, signal);
}

/** The effort a call of `model` is sent, and the notice when one was asked for a model that takes none. */
export function effortFor(
  provider: ProviderName,
  model: string,
  effort: Effort | undefined,
): { effort?: Effort; notice?: string } {
  if (!effort) return {};
  return takesEffort(provider, model) ? { effort } : { notice: effortNotice(effort, model) };
}

/**
 * The effort a job of an agent definition asks for: its own over the session's. A definition
 * from the repository (a cloned project's file) may lower the session's effort, never raise it
 * or set one the user did not: thinking tokens are billed.
 */
export function definitionEffort(
  own: Effort | undefined,
  session: Effort | undefined,
  options: { fromRepository?: boolean },
): Effort | undefined {
  if (own === undefined || !options.fromRepository) return own ?? session;
  if (session === undefined) return undefined;
  return EFFORT_LEVELS.indexOf(own) < EFFORT_LEVELS.indexOf(session) ? own : session;
}
