import { describe, expect, it } from 'vitest';
import type { AgentDefinition } from '../../../src/core/agents/agent-definition.js';
import { definitionCaps } from '../../../src/core/agents/definition-caps.js';

const definition = (over: Partial<AgentDefinition> = {}): AgentDefinition => ({
  name: 'a',
  description: 'd',
  systemPrompt: 'p',
  disallowedTools: [],
  model: 'inherit',
  source: 'user',
  ...over,
});

describe('definitionCaps: what a job of a definition may use', () => {
  it('the child defaults, then the settings, then the file: each cap from the nearest that gives one', () => {
    expect(definitionCaps(definition())).toEqual({ maxTurns: 10, maxTokens: 1_000_000, maxDurationMs: 300_000 });
    expect(definitionCaps(definition(), { maxCostUsd: 2, maxToolCalls: 50, maxTurns: 20 })).toEqual({
      maxTurns: 20,
      maxTokens: 1_000_000,
      maxDurationMs: 300_000,
      maxCostUsd: 2,
      maxToolCalls: 50,
    });
    expect(
      definitionCaps(definition({ maxCostUsd: 5, maxToolCalls: 200, maxTurns: 40 }), { maxCostUsd: 2, maxToolCalls: 50 }),
    ).toMatchObject({
      maxCostUsd: 5,
      maxToolCalls: 200,
      maxTurns: 40,
    });
  });

  it("a file from the repository may lower the user's caps, never raise them", () => {
    const repo = definition({ maxCostUsd: 5, maxToolCalls: 10, maxDurationMs: 3_600_000, fromRepository: true });
    expect(definitionCaps(repo, { maxCostUsd: 2, maxToolCalls: 50 })).toMatchObject({
      maxCostUsd: 2,
      maxToolCalls: 10,
      maxDurationMs: 300_000,
    });
    // With no cap of the user's to keep it under, a repository's own dollar cap is still a cap.
    expect(definitionCaps(repo).maxCostUsd).toBe(5);
  });
});
