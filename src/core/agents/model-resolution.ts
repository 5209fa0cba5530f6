import { ANTHROPIC_ALIASES, aliasTarget, modelFamily } from '../config/model-aliases.js';
import type { ProviderName } from '../providers/types.js';

/**
 * Which model a sub-agent runs on. A definition's or agent_start's `model` is read against the
 * session's provider: `inherit` (or nothing) is the parent's model; an alias is looked up in the
 * user's `modelAliases` first, then Claude Code's (`sonnet`, `opus`, `haiku`, `opusplan`, with or
 * without `[1m]`); anything else is a full id. An id the provider cannot serve (a `claude-…` id
 * on OpenAI, a `gpt-…` one on Anthropic) is never sent: the job runs on the parent's model and
 * the user is told once.
 */

export { ANTHROPIC_ALIASES };

export interface ModelContext {
  provider: ProviderName;
  parentModel: string;
  /** The user's `modelAliases`: a name (`sonnet`, `fast`) → a model id this provider serves. */
  aliases?: Readonly<Record<string, string>>;
}

/** The model a job runs on, and why it is not the one asked for when it is not. */
export interface ModelChoice {
  model: string;
  /** Set when the request could not be honoured (the parent's model is used instead). */
  refused?: string;
}

/** Resolves `requested` (a definition's or agent_start's `model`) against the session's provider. */
export function resolveModel(requested: string | undefined, context: ModelContext): ModelChoice {
  const asked = requested?.trim() ?? '';
  if (asked === '' || asked.toLowerCase() === 'inherit' || asked.toLowerCase() === 'default') {
    return { model: context.parentModel };
  }
  const id = aliasTarget(asked, context.aliases) ?? asked;
  const family = modelFamily(id);
  const serves = context.provider === 'anthropic' ? family === 'anthropic' : family !== 'anthropic';
  if (serves) return { model: id };
  const via = id === asked ? '' : ` (${asked} means ${id})`;
  const fix =
    context.provider === 'openai'
      ? `map "${asked}" to a model of your server in modelAliases in settings`
      : 'name a claude-… model, or inherit';
  return {
    model: context.parentModel,
    refused: `model "${asked}"${via} is not served by the ${context.provider} provider; running on ${context.parentModel} instead (${fix})`,
  };
}

/**
 * One warning line for every definition whose model cannot be served, gathered (the user hears
 * of it once at start, not once per file or per run). Undefined when all resolve.
 */
export function definitionModelWarning(
  definitions: readonly { name: string; model: string }[],
  context: ModelContext,
): string | undefined {
  const refused = new Map<string, string[]>();
  for (const definition of definitions) {
    const choice = resolveModel(definition.model, context);
    if (!choice.refused) continue;
    refused.set(choice.refused, [...(refused.get(choice.refused) ?? []), definition.name]);
  }
  if (refused.size === 0) return undefined;
  const parts = [...refused].map(
    ([why, names]) => `${why}: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ` and ${names.length - 5} more` : ''}`,
  );
  return `agent files: ${parts.join('; ')}`;
}
