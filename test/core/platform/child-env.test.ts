import { describe, expect, it } from 'vitest';
import { withoutSecrets } from '../../../src/core/platform/child-env.js';

const KEY = 'sk-ant-session-key-0123456789';

describe('withoutSecrets', () => {
  const env = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    ANTHROPIC_API_KEY: KEY,
    OPENAI_API_KEY: 'sk-other-0123456789abcdef',
    MY_PROXY_KEY: KEY,
    PROXY_URL: `https://proxy.example/?key=${KEY}`,
    GITHUB_TOKEN: 'ghp_0123456789',
    AWS_SECRET_ACCESS_KEY: 'abc123abc123',
    GIT_CONFIG_KEY_0: 'core.pager',
    SHORT: 'x',
  };
  const secrets = { names: ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY'], values: [KEY] };

  it('drops the named variables and any that holds a secret value, whatever its name', () => {
    expect(withoutSecrets(env, secrets, { credentials: false })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      GITHUB_TOKEN: 'ghp_0123456789',
      AWS_SECRET_ACCESS_KEY: 'abc123abc123',
      GIT_CONFIG_KEY_0: 'core.pager',
      SHORT: 'x',
    });
  });

  it('for a command no one approved, drops every variable named like a credential too', () => {
    expect(withoutSecrets(env, secrets, { credentials: true })).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      GIT_CONFIG_KEY_0: 'core.pager',
      SHORT: 'x',
    });
  });

  it('leaves the environment it was given alone', () => {
    const copy = { ...env };
    withoutSecrets(copy, secrets, { credentials: true });
    expect(copy).toEqual(env);
  });
});
