import { oneLine } from '../platform/text.js';

/** A definition as the parent model is told of it. */
export interface AgentSummary {
  name: string;
  description: string;
}

/** About what the agent list in `agent_start`'s description may cost on every request. */
export const CATALOGUE_BUDGET_BYTES = 2700;

/** The first sentence of a description, one line: what the catalogue shows of each agent. */
export function firstSentence(description: string): string {
  const line = oneLine(description);
  const end = /[.!?](\s|$)/.exec(line);
  const sentence = end ? line.slice(0, end.index + 1) : line;
  return oneLine(sentence, 160);
}

/**
 * The agents named in `agent_start`'s description: the default first, then the rest in
 * order, each with its first sentence, up to `budget` bytes. What does not fit is counted
 * and left to `agent_list`, so a catalogue of hundreds of agents costs the same on every
 * request as one of a dozen.
 */
export function catalogueText(agents: readonly AgentSummary[], defaultAgent: string, budget = CATALOGUE_BUDGET_BYTES): string {
  const ordered = [...agents.filter((a) => a.name === defaultAgent), ...agents.filter((a) => a.name !== defaultAgent)];
  const entries: string[] = [];
  let used = 0;
  for (const agent of ordered) {
    const entry = `${agent.name}${agent.name === defaultAgent ? ' (default)' : ''}: ${firstSentence(agent.description)}`;
    const cost = Buffer.byteLength(entry) + 2;
    if (entries.length > 0 && used + cost > budget) break;
    entries.push(entry);
    used += cost;
  }
  const left = ordered.length - entries.length;
  const more = left > 0 ? `; …and ${left} more: call agent_list to find one by what it does.` : '';
  return `Agents: ${entries.join('; ')}${more}`;
}

/** Agents whose name or description holds every word of `query` (case-insensitive); all without one. */
export function findAgents(agents: readonly AgentSummary[], query: string | undefined): AgentSummary[] {
  const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  return agents.filter((agent) => {
    const haystack = `${agent.name} ${agent.description}`.toLowerCase();
    return words.every((word) => haystack.includes(word));
  });
}
