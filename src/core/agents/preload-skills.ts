import type { AgentDefinition } from './agent-definition.js';

/** A skill as preloading reads it (commands/skills.ts's Skill, which sits above this layer). */
export interface SkillText {
  name: string;
  /** The SKILL.md body. */
  body: string;
  /** The SKILL.md file, for the heading. */
  path: string;
  /** Its folder, where its other files are. */
  dir: string;
}

/** The most skill text one agent's jobs start with; skills past it are named in a warning and left out. */
export const MAX_PRELOADED_SKILL_BYTES = 100_000;

/**
 * Claude Code's `skills:` in an agent file: the named skills' whole text is in the job's context
 * from its start, not merely on offer. Each definition naming skills gets their text after its
 * own prompt, so a job run here and one sent to a worker (whose payload carries the prompt)
 * start the same. A name the session has no skill of is a warning naming the file and the
 * skill, not a refusal: the agent still runs, without it. Returns the warnings, one per file.
 */
export function preloadSkills(definitions: Map<string, AgentDefinition>, skills: ReadonlyMap<string, SkillText>): string[] {
  const warnings: string[] = [];
  for (const definition of definitions.values()) {
    if (!definition.skills?.length) continue;
    const where = definition.path ?? `--agents ${definition.name}`;
    const unknown: string[] = [];
    const tooMuch: string[] = [];
    const sections: string[] = [];
    let used = 0;
    for (const name of definition.skills) {
      const skill = skills.get(name);
      if (!skill) {
        unknown.push(name);
        continue;
      }
      const section = `## Skill ${skill.name} (${skill.path})\n\n${skill.body.trim()}\n\nIts other files, if any, are in ${skill.dir}.`;
      const size = Buffer.byteLength(section);
      if (used + size > MAX_PRELOADED_SKILL_BYTES) {
        tooMuch.push(name);
        continue;
      }
      used += size;
      sections.push(section);
    }
    const notes: string[] = [];
    const quoted = (names: string[]) => names.map((name) => JSON.stringify(name)).join(', ');
    if (unknown.length) {
      const known = [...skills.keys()].slice(0, 20).join(', ') || 'none';
      notes.push(
        `no skill named ${quoted(unknown)} (skills here: ${known}); its jobs run without ${unknown.length === 1 ? 'it' : 'them'}`,
      );
    }
    if (tooMuch.length) {
      notes.push(`${quoted(tooMuch)} not preloaded: one agent's preloaded skills stop at ${MAX_PRELOADED_SKILL_BYTES / 1000} KB`);
    }
    if (notes.length) warnings.push(`${where}: skills: ${notes.join('; ')}`);
    if (sections.length === 0) continue;
    definitions.set(definition.name, {
      ...definition,
      systemPrompt: `${definition.systemPrompt.trim()}\n\n# Skills\n\nThese skills are loaded for you; follow them where your task calls for them.\n\n${sections.join('\n\n')}`,
    });
  }
  return warnings;
}
