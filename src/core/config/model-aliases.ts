/**
 * Claude Code's model aliases (`sonnet`, `opus`, `haiku`, `opusplan`, each with or without
 * `[1m]`), read the same way for the main model (`--model`, settings) and for sub-agents
 * (agents/model-resolution.ts): the user's `modelAliases` first, then Claude Code's.
 */
import type { ProviderName } from '../providers/types.js';

/** Claude Code's aliases, as current Anthropic ids (the newest of each family in providers/models.ts). */
export const ANTHROPIC_ALIASES: Readonly<Record<string, string>> = {
  opus: 'claude-opus-5-5',
  // Claude Code plans with Opus and works with Sonnet; outrider has one model a session: Opus.
  opusplan: 'claude-opus-5-5',
  sonnet: 'claude-sonnet-5',
  haiku: 'claude-haiku-5-5',
};

/** What an alias names: the user's table first, then Claude Code's; undefined when `asked` is no alias. */
export function aliasTarget(asked: string, aliases: Readonly<Record<string, string>> | undefined): string | undefined {
  const name = asked
    .trim()
    .toLowerCase()
    .replace(/\[1m\]$/, '');
  return lookup(aliases, name) ?? lookup(aliases, asked.trim()) ?? lookup(ANTHROPIC_ALIASES, name);
}

/** Which vendor's naming an id follows; OpenAI-compatible servers (Ollama, vLLM) name theirs freely. */
export function modelFamily(id: string): 'anthropic' | 'openai' | 'other' {
  if (/^claude-/i.test(id)) return 'anthropic';
  if (/^(gpt-|chatgpt-|o\d(-|$))/i.test(id)) return 'openai';
  return 'other';
}

/** Whether `provider` can serve a model named `id`. */
export function providerServes(provider: ProviderName, id: string): boolean {
  const family = modelFamily(id);
  return provider === 'anthropic' ? family === 'anthropic' : family !== 'anthropic';
}

/**
 * The main model for `asked` (a flag's or setting's `--model`): an alias becomes its id; an
 * alias the provider cannot serve (`opus` on an OpenAI-compatible server with no `modelAliases`
 * entry) is not sent: the provider's default is used and `warning` says how to map it.
 */
export function resolveMainModel(
  asked: string,
  context: { provider: ProviderName; aliases?: Readonly<Record<string, string>>; fallback: string },
): { model: string; warning?: string } {
  const target = aliasTarget(asked, context.aliases);
  if (target === undefined) return { model: asked };
  if (
    providerServes(context.provider, target) ||
    lookup(
      context.aliases,
      asked
        .trim()
        .toLowerCase()
        .replace(/\[1m\]$/, ''),
    )
  ) {
    return { model: target };
  }
  return {
    model: context.fallback,
    warning:
      `model "${asked}" means ${target}, which the ${context.provider} provider does not serve; running on ` +
      `${context.fallback} (map "${asked.replace(/\[1m\]$/i, '')}" to a model of your server in modelAliases in settings)`,
  };
}

function lookup(table: Readonly<Record<string, string>> | undefined, key: string): string | undefined {
  return table && Object.hasOwn(table, key) ? table[key] : undefined;
}
