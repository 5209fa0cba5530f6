import { describe, expect, it } from 'vitest';
import type { CliOptions } from '../../src/start/options.js';
import { sessionSetupFromCli, unhonouredFlags } from '../../src/start/session-setup.js';

const cli = (options: Partial<CliOptions>): CliOptions => ({ outputFormat: 'text', waitAgents: true, ...options });
const context = { env: {}, cwd: '/work/p', headless: true };

describe('--effort', () => {
  it('is the top settings layer, and no longer named as a flag outrider does not honour', () => {
    expect(sessionSetupFromCli(cli({ effort: 'max' }), context).flags.effort).toBe('max');
    expect(sessionSetupFromCli(cli({}), context).flags).not.toHaveProperty('effort');
    expect(unhonouredFlags(cli({ effort: 'high' }))).toBeUndefined();
    expect(unhonouredFlags(cli({ effort: 'high', maxThinkingTokens: '4000' }))).toMatch(
      /does not honour --max-thinking-tokens \(/,
    );
  });
});
