import { describe, expect, it } from 'vitest';
import { CATALOGUE_BUDGET_BYTES, catalogueText, findAgents, firstSentence } from '../../../src/core/agents/catalogue.js';

const many = Array.from({ length: 158 }, (_, i) => ({
  name: `agent-${i}`,
  description: `Expert number ${i} for ${i % 2 ? 'security reviews' : 'database tuning'}. Use it when the parent needs deep knowledge of topic ${i}; it reads code, compares versions and writes long reports with every detail it found.`,
}));

describe('the agent catalogue', () => {
  it('shows the first sentence of each description, on one line', () => {
    expect(firstSentence('Reviews code.\nUse it after every change. It is strict.')).toBe('Reviews code.');
    expect(firstSentence('No full stop here')).toBe('No full stop here');
    expect(firstSentence('Version 4.8 expert. More.')).toBe('Version 4.8 expert.');
  });

  it('stays within its budget however many agents there are, the default first, and says how to find the rest', () => {
    const agents = [...many, { name: 'explore', description: 'Read-only investigator. Long text.' }];
    const text = catalogueText(agents, 'explore');
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CATALOGUE_BUDGET_BYTES + 200);
    expect(text.startsWith('Agents: explore (default): Read-only investigator.;')).toBe(true);
    expect(text).toMatch(/…and \d+ more: call agent_list to find one by what it does\.$/);
  });

  it('lists every agent when they fit', () => {
    const text = catalogueText(
      [
        { name: 'a', description: 'One.' },
        { name: 'b', description: 'Two.' },
      ],
      'a',
    );
    expect(text).toBe('Agents: a (default): One.; b: Two.');
  });

  it('finds agents by every word of a query, in name or description', () => {
    expect(findAgents(many, 'SECURITY reviews').length).toBe(79);
    expect(findAgents(many, 'agent-157 security').map((a) => a.name)).toEqual(['agent-157']);
    expect(findAgents(many, undefined)).toHaveLength(158);
    expect(findAgents(many, 'nothing-like-this')).toEqual([]);
  });
});
