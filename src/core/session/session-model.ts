/**
 * The parent's model, which `/model` (the TUI) and `set_model` (the Agent SDK) switch between
 * turns. Everything that depends on it reads it here when it needs it: the conversation's
 * requests, compaction's window, what `inherit` means for a sub-agent started from then on,
 * the footer and the prices of the parent's usage. A running turn keeps the model it began
 * with; jobs already started keep theirs.
 */
import { aliasTarget, providerServes } from '../config/model-aliases.js';
import { effortFor } from '../providers/effort.js';
import { KNOWN_MODELS, type ModelInfo, isKnownModel, modelInfo } from '../providers/models.js';
import { type Effort, type ProviderName, isEffort } from '../providers/types.js';

/** What the parent runs on: the model, its figures, the answer's cap and the effort sent with it. */
export interface ModelTarget {
  model: string;
  info: ModelInfo;
  maxTokens: number;
  /** Sent only where the model takes one. */
  effort?: Effort;
}

export interface ModelSettings {
  provider: ProviderName;
  /** `maxTokens` from settings or flags; the model's own cap bounds it. */
  maxTokens: number;
  /** The settings' `models` entries (figures and prices of models outrider does not know). */
  models?: Readonly<Record<string, Partial<ModelInfo>>>;
  /** The user's `modelAliases`, read before Claude Code's. */
  aliases?: Readonly<Record<string, string>>;
}

/** A switch's outcome: the new target and what the user should know of it, or why it was refused. */
export type ModelSwitch = { ok: true; target: ModelTarget; notes: string[] } | { ok: false; error: string };

/** Characters a model id is made of: Anthropic's and OpenAI's ids, OpenRouter's `vendor/model`, Ollama's `name:tag`. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/@+[\]-]{0,127}$/;

/** The target for `model` with `effort` asked for: the effort only where the model takes one. */
export function modelTarget(
  model: string,
  effort: Effort | undefined,
  settings: ModelSettings,
): { target: ModelTarget; notice?: string } {
  const info = modelInfo(model, settings.models);
  const chosen = effortFor(settings.provider, model, effort);
  const target: ModelTarget = {
    model,
    info,
    maxTokens: Math.min(settings.maxTokens, info.maxOutput),
    ...(chosen.effort ? { effort: chosen.effort } : {}),
  };
  return chosen.notice ? { target, notice: chosen.notice } : { target };
}

/** One model of the `/model` list: its id, the aliases that name it, and its figures. */
export interface CatalogueEntry {
  id: string;
  aliases: string[];
  info: ModelInfo;
  current: boolean;
}

/**
 * The models `provider` can serve that outrider knows figures of (the catalogue and the settings'
 * `models`), plus the user's aliases' targets, newest first within the catalogue's order; the
 * current model is always among them.
 */
export function modelCatalogue(current: string, settings: ModelSettings): CatalogueEntry[] {
  const ids = [
    ...Object.keys(KNOWN_MODELS).reverse(),
    ...Object.keys(settings.models ?? {}),
    ...Object.values(settings.aliases ?? {}),
    current,
  ].filter((id) => providerServes(settings.provider, id));
  const unique = [...new Set(ids)];
  const aliasesOf = (id: string) =>
    ['opus', 'sonnet', 'haiku', ...Object.keys(settings.aliases ?? {})].filter(
      (alias, index, all) => all.indexOf(alias) === index && aliasTarget(alias, settings.aliases) === id,
    );
  return unique.map((id) => ({ id, aliases: aliasesOf(id), info: modelInfo(id, settings.models), current: id === current }));
}

/** The parent's model now, and the switch between turns. */
export class SessionModel {
  private target: ModelTarget;
  private readonly listeners: ((target: ModelTarget, notes: readonly string[]) => void)[] = [];

  /**
   * @param initial the model the session opened with (`/model default` goes back to it)
   * @param effort the effort the session asks for (flags, settings), kept across switches
   */
  constructor(
    private readonly initial: string,
    private effort: Effort | undefined,
    private readonly settings: ModelSettings,
  ) {
    this.target = modelTarget(initial, effort, settings).target;
  }

  current(): ModelTarget {
    return this.target;
  }

  /** The session's effort as asked (the target's is undefined where its model takes none): sub-agents inherit it. */
  askedEffort(): Effort | undefined {
    return this.effort;
  }

  /** Tells `listener` of each switch, after it is made, with what the user should know of it. */
  onChange(listener: (target: ModelTarget, notes: readonly string[]) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Switches to `asked` (an id, an alias, or `default`: the model the session opened with),
   * and to `effort` when one is given. Refused, with what to do, when the provider cannot serve
   * it or the name is no model id; the current model stays.
   */
  switchTo(asked: string, effort?: string): ModelSwitch {
    const name = asked.trim();
    if (effort !== undefined && !isEffort(effort)) {
      return { ok: false, error: `effort "${printable(effort)}" is not one of low, medium, high, max` };
    }
    if (!MODEL_ID.test(name)) {
      return {
        ok: false,
        error: `"${printable(name)}" is not a model id: name one of /model's list, or an alias (opus, sonnet, haiku)`,
      };
    }
    const model = name.toLowerCase() === 'default' ? this.initial : (aliasTarget(name, this.settings.aliases) ?? name);
    if (!providerServes(this.settings.provider, model)) {
      const via = model === name ? '' : ` (${name} means ${model})`;
      return {
        ok: false,
        error:
          `${model}${via} is not served by the ${this.settings.provider} provider this session talks to; ` +
          (this.settings.provider === 'anthropic'
            ? 'name a claude-… model, or start outrider with --provider openai to use it'
            : `map "${name}" to a model of your server in modelAliases in settings`),
      };
    }
    const asking = effort ?? this.effort;
    const { target, notice } = modelTarget(model, asking, this.settings);
    const notes = [
      ...(notice ? [notice] : []),
      ...(isKnownModel(model, this.settings.models)
        ? []
        : [
            `${model} is not in outrider's model catalogue: a ${target.info.contextWindow.toLocaleString('en-US')}-token window ` +
              'is assumed and its price is unknown (give its figures in settings under models)',
          ]),
    ];
    this.effort = asking;
    this.target = target;
    for (const listener of this.listeners) listener(target, notes);
    return { ok: true, target, notes };
  }
}

/** `text` with control characters shown as `?`, cut to 60 characters: safe to put in a message. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 60)}…` : clean;
}
