import type { ProviderName } from '../providers/types.js';
import { resolveMainModel } from './model-aliases.js';

/** Everything needed to talk to a model, resolved from flags, settings and environment. */
export interface ProviderConfig {
  provider: ProviderName;
  model: string;
  apiKey: string;
  baseURL?: string;
  toolMode: 'native' | 'text';
  maxRetries: number;
  /** The model asked for was an alias this provider cannot serve: what was done instead. */
  modelWarning?: string;
}

/** The layers a provider config is resolved from; flags win over settings, settings over env. */
export interface ProviderConfigInput {
  flags: { provider?: string; model?: string; baseURL?: string; toolMode?: string };
  settings: {
    provider?: ProviderName;
    model?: string;
    baseURL?: string;
    toolMode?: 'native' | 'text';
    maxRetries?: number;
    /** Names (`sonnet`, `fast`) → model ids; Claude Code's aliases are known without it. */
    modelAliases?: Record<string, string>;
  };
  env: NodeJS.ProcessEnv;
}

/**
 * The newest general model of each provider in the catalogue (providers/models.ts): Sonnet, as
 * the `sonnet` alias names, and OpenAI's flagship (Responses API on OpenAI's own host; Chat
 * Completions on any other server, see openaiApiFor).
 */
export const DEFAULT_MODELS: Record<ProviderName, string> = {
  anthropic: 'claude-sonnet-5',
  openai: 'gpt-5.5',
};

/** A configuration problem the user must fix before anything runs. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const KEY_VARIABLE: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_API_KEY', openai: 'OPENAI_API_KEY' };
const URL_VARIABLE: Record<ProviderName, string> = { anthropic: 'ANTHROPIC_BASE_URL', openai: 'OPENAI_BASE_URL' };

/** Resolves provider, model, key and base URL; throws ConfigError saying what to set. */
export function resolveProviderConfig({ flags, settings, env }: ProviderConfigInput): ProviderConfig {
  const provider = pickProvider(flags.provider ?? settings.provider, nonEmpty(flags.baseURL) ?? nonEmpty(settings.baseURL), env);
  const baseURL = checkedURL(nonEmpty(flags.baseURL) ?? nonEmpty(settings.baseURL) ?? nonEmpty(env[URL_VARIABLE[provider]]));
  const toolMode = flags.toolMode ?? settings.toolMode ?? 'native';
  if (toolMode !== 'native' && toolMode !== 'text') {
    throw new ConfigError(`unknown tool mode "${toolMode}": use native or text`);
  }
  const asked = nonEmpty(flags.model) ?? nonEmpty(settings.model) ?? nonEmpty(env.OUTRIDER_MODEL) ?? DEFAULT_MODELS[provider];
  // `--model sonnet` (Claude Code's aliases, and the user's modelAliases) names a model id.
  const { model, warning: modelWarning } = resolveMainModel(asked, {
    provider,
    aliases: settings.modelAliases,
    fallback: DEFAULT_MODELS[provider],
  });
  let apiKey = nonEmpty(env[KEY_VARIABLE[provider]]);
  if (!apiKey) {
    // Local OpenAI-compatible servers (Ollama, llama.cpp, vLLM) take any key.
    if (provider === 'openai' && baseURL && !isOpenAIHost(baseURL)) apiKey = 'no-key';
    else throw new ConfigError(missingKeyMessage(provider));
  }
  return {
    provider,
    model,
    apiKey,
    baseURL,
    toolMode,
    maxRetries: settings.maxRetries ?? 4,
    ...(modelWarning ? { modelWarning } : {}),
  };
}

function pickProvider(named: string | undefined, baseURL: string | undefined, env: NodeJS.ProcessEnv): ProviderName {
  if (named !== undefined) {
    if (named === 'anthropic' || named === 'openai') return named;
    throw new ConfigError(
      `unknown provider "${named}": use anthropic or openai (openai also covers Ollama, vLLM, llama.cpp, OpenRouter)`,
    );
  }
  if (baseURL) return 'openai';
  if (nonEmpty(env.ANTHROPIC_API_KEY)) return 'anthropic';
  if (nonEmpty(env.OPENAI_API_KEY) || nonEmpty(env.OPENAI_BASE_URL)) return 'openai';
  if (nonEmpty(env.ANTHROPIC_BASE_URL)) return 'anthropic';
  throw new ConfigError(missingKeyMessage());
}

function missingKeyMessage(provider?: ProviderName): string {
  const local =
    'or run a local OpenAI-compatible server and pass --provider openai --base-url http://localhost:11434/v1 --model <name>';
  if (provider) return `no API key for ${provider}: set ${KEY_VARIABLE[provider]}, ${local}`;
  return `no API key: set ANTHROPIC_API_KEY or OPENAI_API_KEY, ${local}`;
}

function isOpenAIHost(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'openai.com' || host.endsWith('.openai.com');
}

/** A base URL must be http(s); anything else would fail later, slowly, after retries. */
function checkedURL(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new ConfigError(`invalid base URL "${url}": expected something like http://localhost:11434/v1`);
  }
  return url;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() ? value.trim() : undefined;
}
