import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_MODELS,
  type ProviderConfig,
  type ProviderConfigInput,
  resolveProviderConfig,
} from '../../../src/core/config/provider-config.js';
import { ANTHROPIC_ALIASES } from '../../../src/core/config/model-aliases.js';
import { modelInfo, openaiApiFor } from '../../../src/core/providers/models.js';

const ANTHROPIC_KEY = 'sk-ant-test-key';
const OPENAI_KEY = 'sk-openai-test-key';
const LOCAL = 'http://localhost:11434/v1';

type Layers = Partial<ProviderConfigInput>;

function resolve(layers: Layers): ProviderConfig {
  return resolveProviderConfig({ flags: layers.flags ?? {}, settings: layers.settings ?? {}, env: layers.env ?? {} });
}

/** The ConfigError a set of layers raises. */
function errorOf(layers: Layers): ConfigError {
  try {
    resolve(layers);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).name).toBe('ConfigError');
    return error as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(layers)} to be rejected`);
}

describe('resolveProviderConfig: flags over settings over environment', () => {
  const cases: Array<{ name: string; layers: Layers; expected: Partial<ProviderConfig> }> = [
    {
      name: 'provider: the flag beats the setting',
      layers: {
        flags: { provider: 'openai' },
        settings: { provider: 'anthropic' },
        env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY },
      },
      expected: { provider: 'openai', apiKey: OPENAI_KEY },
    },
    {
      name: "provider: the setting beats the environment's ANTHROPIC_API_KEY",
      layers: { settings: { provider: 'openai' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY } },
      expected: { provider: 'openai', apiKey: OPENAI_KEY },
    },
    {
      name: 'model: the flag beats the setting and OUTRIDER_MODEL',
      layers: {
        flags: { model: 'from-flag' },
        settings: { model: 'from-settings' },
        env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OUTRIDER_MODEL: 'from-env' },
      },
      expected: { model: 'from-flag' },
    },
    {
      name: 'model: the setting beats OUTRIDER_MODEL',
      layers: { settings: { model: 'from-settings' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OUTRIDER_MODEL: 'from-env' } },
      expected: { model: 'from-settings' },
    },
    {
      name: 'model: OUTRIDER_MODEL beats the provider default',
      layers: { env: { OPENAI_API_KEY: OPENAI_KEY, OUTRIDER_MODEL: 'from-env' } },
      expected: { provider: 'openai', model: 'from-env' },
    },
    {
      name: 'model: a blank OUTRIDER_MODEL is ignored',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OUTRIDER_MODEL: '   ' } },
      expected: { model: DEFAULT_MODELS.anthropic },
    },
    {
      name: 'baseURL: the flag beats the setting and the environment',
      layers: {
        flags: { provider: 'openai', baseURL: 'http://flag.test/v1' },
        settings: { baseURL: 'http://settings.test/v1' },
        env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: 'http://env.test/v1' },
      },
      expected: { baseURL: 'http://flag.test/v1' },
    },
    {
      name: 'baseURL: the setting beats the environment',
      layers: {
        settings: { provider: 'openai', baseURL: 'http://settings.test/v1' },
        env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: 'http://env.test/v1' },
      },
      expected: { baseURL: 'http://settings.test/v1' },
    },
    {
      name: "baseURL: the chosen provider's variable is used, not the other one's",
      layers: {
        env: {
          ANTHROPIC_API_KEY: ANTHROPIC_KEY,
          ANTHROPIC_BASE_URL: 'http://proxy.test',
          OPENAI_BASE_URL: 'http://other.test/v1',
        },
      },
      expected: { provider: 'anthropic', baseURL: 'http://proxy.test' },
    },
    {
      name: 'baseURL: none given leaves the SDK default',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { baseURL: undefined },
    },
    {
      name: 'toolMode: the flag beats the setting',
      layers: { flags: { toolMode: 'text' }, settings: { toolMode: 'native' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { toolMode: 'text' },
    },
    {
      name: 'toolMode: the setting applies without a flag',
      layers: { settings: { toolMode: 'text' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { toolMode: 'text' },
    },
    {
      name: 'toolMode: native by default',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { toolMode: 'native' },
    },
    {
      name: 'maxRetries: 4 by default',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { maxRetries: 4 },
    },
    {
      name: 'maxRetries: a setting of 0 is kept, not replaced by the default',
      layers: { settings: { maxRetries: 0 }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { maxRetries: 0 },
    },
  ];

  for (const { name, layers, expected } of cases) {
    it(name, () => {
      const config = resolve(layers);
      for (const [key, value] of Object.entries(expected)) {
        expect(config[key as keyof ProviderConfig], key).toBe(value);
      }
    });
  }
});

describe('resolveProviderConfig: choosing the provider from the environment', () => {
  const cases: Array<{ name: string; layers: Layers; expected: Partial<ProviderConfig> }> = [
    {
      name: 'ANTHROPIC_API_KEY alone → anthropic with its default model',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { provider: 'anthropic', model: 'claude-sonnet-5', apiKey: ANTHROPIC_KEY },
    },
    {
      name: 'OPENAI_API_KEY alone → openai with its default model',
      layers: { env: { OPENAI_API_KEY: OPENAI_KEY } },
      expected: { provider: 'openai', model: 'gpt-5.5', apiKey: OPENAI_KEY },
    },
    {
      name: 'both keys → anthropic',
      layers: { env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OPENAI_API_KEY: OPENAI_KEY } },
      expected: { provider: 'anthropic', apiKey: ANTHROPIC_KEY },
    },
    {
      name: 'a blank ANTHROPIC_API_KEY does not count',
      layers: { env: { ANTHROPIC_API_KEY: '  ', OPENAI_API_KEY: OPENAI_KEY } },
      expected: { provider: 'openai', apiKey: OPENAI_KEY },
    },
    {
      name: 'keys are trimmed',
      layers: { env: { ANTHROPIC_API_KEY: ` ${ANTHROPIC_KEY}\n` } },
      expected: { apiKey: ANTHROPIC_KEY },
    },
    {
      name: 'OPENAI_BASE_URL alone → openai against that URL',
      layers: { env: { OPENAI_BASE_URL: LOCAL } },
      expected: { provider: 'openai', baseURL: LOCAL, model: 'gpt-5.5' },
    },
    {
      name: 'OPENAI_API_KEY wins over ANTHROPIC_BASE_URL',
      layers: { env: { OPENAI_API_KEY: OPENAI_KEY, ANTHROPIC_BASE_URL: 'http://proxy.test' } },
      expected: { provider: 'openai', baseURL: undefined },
    },
    {
      name: 'ANTHROPIC_BASE_URL with the Anthropic key → anthropic through that URL',
      layers: { env: { ANTHROPIC_BASE_URL: 'http://proxy.test', ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { provider: 'anthropic', baseURL: 'http://proxy.test' },
    },
    {
      name: 'a base URL flag without a provider → openai, even with only an Anthropic key set',
      layers: { flags: { baseURL: LOCAL }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { provider: 'openai', baseURL: LOCAL },
    },
    {
      name: 'a base URL setting without a provider → openai',
      layers: { settings: { baseURL: LOCAL }, env: { OPENAI_API_KEY: OPENAI_KEY } },
      expected: { provider: 'openai', baseURL: LOCAL, apiKey: OPENAI_KEY },
    },
    {
      name: 'the provider flag with a base URL keeps the named provider',
      layers: { flags: { provider: 'anthropic', baseURL: 'http://proxy.test' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } },
      expected: { provider: 'anthropic', baseURL: 'http://proxy.test' },
    },
  ];

  for (const { name, layers, expected } of cases) {
    it(name, () => {
      const config = resolve(layers);
      for (const [key, value] of Object.entries(expected)) {
        expect(config[key as keyof ProviderConfig], key).toBe(value);
      }
    });
  }

  it('OUTRIDER_MODEL replaces the default of either provider', () => {
    expect(resolve({ env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY, OUTRIDER_MODEL: 'claude-x' } }).model).toBe('claude-x');
    expect(resolve({ env: { OPENAI_API_KEY: OPENAI_KEY, OUTRIDER_MODEL: 'gpt-x' } }).model).toBe('gpt-x');
  });
});

describe('resolveProviderConfig: keys for local servers', () => {
  it('a local OpenAI-compatible base URL without a key gets a placeholder key', () => {
    for (const url of [LOCAL, 'http://127.0.0.1:8080/v1', 'http://192.168.1.20:8000/v1']) {
      const config = resolve({ flags: { provider: 'openai', baseURL: url } });
      expect(config.provider).toBe('openai');
      expect(config.baseURL).toBe(url);
      // The SDK refuses an empty key; local servers accept anything.
      expect(config.apiKey).toEqual(expect.any(String));
      expect(config.apiKey.trim()).not.toBe('');
    }
  });

  it('a real key is used even for a local base URL', () => {
    expect(resolve({ flags: { provider: 'openai', baseURL: LOCAL }, env: { OPENAI_API_KEY: OPENAI_KEY } }).apiKey).toBe(
      OPENAI_KEY,
    );
  });

  it('api.openai.com without a key is an error naming OPENAI_API_KEY', () => {
    const error = errorOf({ flags: { provider: 'openai', baseURL: 'https://api.openai.com/v1' } });
    expect(error.message).toMatch(/^no API key for openai: set OPENAI_API_KEY/);
  });

  it('openai without any base URL or key is an error naming OPENAI_API_KEY', () => {
    expect(errorOf({ flags: { provider: 'openai' } }).message).toMatch(/^no API key for openai: set OPENAI_API_KEY/);
  });

  it('anthropic needs its key even with a base URL', () => {
    const error = errorOf({ env: { ANTHROPIC_BASE_URL: 'http://proxy.test' } });
    expect(error.message).toMatch(/^no API key for anthropic: set ANTHROPIC_API_KEY/);
    expect(errorOf({ flags: { provider: 'anthropic', baseURL: LOCAL } }).message).toMatch(/set ANTHROPIC_API_KEY/);
  });

  it('no key at all names both variables and how to use a local server, in one line', () => {
    const error = errorOf({ env: { HOME: '/home/someone', PATH: '/usr/bin' } });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).toContain('OPENAI_API_KEY');
    expect(error.message).toContain('--provider openai --base-url http://localhost:11434/v1 --model <name>');
    expect(error.message).not.toContain('\n');
  });

  it('the missing-key error for one provider also gives the local-server hint', () => {
    expect(errorOf({ flags: { provider: 'anthropic' } }).message).toContain('--base-url http://localhost:11434/v1');
  });
});

describe('resolveProviderConfig: bad values', () => {
  it('an unknown provider says which ones exist', () => {
    const error = errorOf({ flags: { provider: 'gemini' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } });
    expect(error.message).toMatch(/^unknown provider "gemini": use anthropic or openai/);
  });

  it('an unknown tool mode says which ones exist', () => {
    const error = errorOf({ flags: { toolMode: 'xml' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } });
    expect(error.message).toBe('unknown tool mode "xml": use native or text');
  });

  it('an invalid base URL says what a good one looks like', () => {
    const error = errorOf({ flags: { provider: 'openai', baseURL: 'not a url' } });
    expect(error.message).toBe('invalid base URL "not a url": expected something like http://localhost:11434/v1');
  });

  it.each([
    ['not a url', { OPENAI_API_KEY: OPENAI_KEY }],
    ['localhost:11434/v1', { OPENAI_API_KEY: OPENAI_KEY }],
    ['ftp://example.com/v1', {}],
  ])('rejects base URL %s whether or not a key is set', (url, env) => {
    const error = errorOf({ flags: { provider: 'openai', baseURL: url }, env });
    expect(error.message).toBe(`invalid base URL "${url}": expected something like http://localhost:11434/v1`);
  });

  it('checks base URLs from the environment too', () => {
    const error = errorOf({ env: { OPENAI_API_KEY: OPENAI_KEY, OPENAI_BASE_URL: 'localhost:1234' } });
    expect(error.message).toMatch(/^invalid base URL "localhost:1234"/);
  });

  it('treats only openai.com and its subdomains as OpenAI itself', () => {
    expect(resolve({ flags: { provider: 'openai', baseURL: 'https://notopenai.com/v1' } }).apiKey).toBe('no-key');
    expect(errorOf({ flags: { provider: 'openai', baseURL: 'https://api.openai.com/v1' } }).message).toMatch(/OPENAI_API_KEY/);
  });

  it('ignores a blank base URL flag', () => {
    expect(resolve({ flags: { baseURL: '  ' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).provider).toBe('anthropic');
  });
});

describe("the main model: Claude Code's aliases", () => {
  it.each([
    ['sonnet', 'claude-sonnet-5'],
    ['opus', 'claude-opus-5-5'],
    ['haiku', 'claude-haiku-5-5'],
    ['sonnet[1m]', 'claude-sonnet-5'],
    ['Opus[1M]', 'claude-opus-5-5'],
    ['opusplan', 'claude-opus-5-5'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5-20250929'],
  ])('--model %s on anthropic is %s', (asked, id) => {
    const config = resolve({ flags: { model: asked }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } });
    expect(config.model).toBe(id);
    expect(config.modelWarning).toBeUndefined();
  });

  it("reads the alias from settings too, and the user's modelAliases first", () => {
    expect(resolve({ settings: { model: 'haiku' }, env: { ANTHROPIC_API_KEY: ANTHROPIC_KEY } }).model).toBe('claude-haiku-5-5');
    const mapped = resolve({
      flags: { model: 'sonnet', baseURL: LOCAL },
      settings: { modelAliases: { sonnet: 'qwen3-coder' } },
      env: {},
    });
    expect(mapped).toMatchObject({ provider: 'openai', model: 'qwen3-coder' });
    expect(mapped.modelWarning).toBeUndefined();
  });

  it('an alias the provider cannot serve is never sent: the default runs, and the warning says how to map it', () => {
    const config = resolve({ flags: { model: 'opus', baseURL: LOCAL }, env: {} });
    expect(config.model).toBe(DEFAULT_MODELS.openai);
    expect(config.modelWarning).toBe(
      'model "opus" means claude-opus-5-5, which the openai provider does not serve; running on gpt-5.5 (map "opus" to a model of your server in modelAliases in settings)',
    );
  });
});

describe('the default models', () => {
  it('are current catalogue models with known prices: Sonnet as the alias names it, and OpenAI on Responses at OpenAI only', () => {
    expect(DEFAULT_MODELS).toEqual({ anthropic: 'claude-sonnet-5', openai: 'gpt-5.5' });
    expect(DEFAULT_MODELS.anthropic).toBe(ANTHROPIC_ALIASES.sonnet);
    expect(modelInfo(DEFAULT_MODELS.anthropic)).toMatchObject({ inputPrice: 2, outputPrice: 10, contextWindow: 1_000_000 });
    expect(modelInfo(DEFAULT_MODELS.openai)).toMatchObject({ inputPrice: 5, outputPrice: 30, contextWindow: 400_000 });
    expect(openaiApiFor(DEFAULT_MODELS.openai, {})).toBe('responses');
    expect(openaiApiFor(DEFAULT_MODELS.openai, { baseURL: 'https://api.openai.com/v1' })).toBe('responses');
    expect(openaiApiFor(DEFAULT_MODELS.openai, { baseURL: LOCAL })).toBe('chat');
  });
});
