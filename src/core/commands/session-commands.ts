import path from 'node:path';
import { type CommandSummary, type CustomCommand, loadCommands } from './command-files.js';
import { type DirectiveRunner, expandDirectives } from './body-directives.js';
import { expandCommand, parseCommandCall, substituteArguments } from './expand.js';
import { type Skill, loadSkills } from './skills.js';

/** A session's custom commands and skills, from Claude Code's folders and outrider's. */
export interface SessionCommands {
  commands: Map<string, CustomCommand>;
  skills: Map<string, Skill>;
  warnings: string[];
}

/**
 * Commands from `~/.claude/commands`, `.claude/commands`, `~/.outrider/commands`,
 * `.outrider/commands` (later wins); skills from the `skills` folders beside them. `home` is
 * the user's home (HOME), `outriderHome` outrider's own folder (OUTRIDER_HOME or ~/.outrider).
 */
export function loadSessionCommands(input: {
  cwd: string;
  home: string | undefined;
  outriderHome: string;
  projectTrusted: boolean;
  knownTools: readonly string[];
}): SessionCommands {
  const { cwd, home } = input;
  const claudeHome = home ? path.join(home, '.claude') : undefined;
  const commands = loadCommands(
    [
      ...(claudeHome ? [{ dir: path.join(claudeHome, 'commands'), source: 'user' as const }] : []),
      { dir: path.join(cwd, '.claude', 'commands'), source: 'project' },
      { dir: path.join(input.outriderHome, 'commands'), source: 'user' },
      { dir: path.join(cwd, '.outrider', 'commands'), source: 'project' },
    ],
    { projectRoot: cwd, projectTrusted: input.projectTrusted, knownTools: input.knownTools },
  );
  const skills = loadSkills(
    [
      ...(claudeHome ? [{ dir: path.join(claudeHome, 'skills'), project: false }] : []),
      { dir: path.join(cwd, '.claude', 'skills'), project: true },
      { dir: path.join(input.outriderHome, 'skills'), project: false },
      { dir: path.join(cwd, '.outrider', 'skills'), project: true },
    ],
    { projectRoot: cwd },
  );
  return { commands: commands.commands, skills: skills.skills, warnings: [...commands.warnings, ...skills.warnings] };
}

/** The commands as a menu lists them, by name. */
export function commandSummaries(commands: ReadonlyMap<string, CustomCommand>): CommandSummary[] {
  return [...commands.values()]
    .map(({ name, description, argumentHint, source }) => ({
      name,
      description,
      source,
      ...(argumentHint ? { argumentHint } : {}),
    }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * The prompt for what the user typed, its command's body directives carried out (`` !`cmd` ``,
 * `@path`: body-directives.ts) before the arguments go in. Run it while the command's
 * `allowed-tools` are allowed, so a `Bash(git status:*)` there lets `` !`git status` `` run.
 */
export async function preparePrompt(
  text: string,
  commands: ReadonlyMap<string, CustomCommand>,
  runner: DirectiveRunner,
  signal: AbortSignal,
): Promise<string> {
  const call = parseCommandCall(text);
  const command = call ? commands.get(call.name) : undefined;
  if (!call || !command) return text;
  return substituteArguments(await expandDirectives(command.body, runner, signal), call.args);
}

/** The prompt to send for what the user typed, and the tools its command allows (none for a plain prompt). */
export function promptFor(text: string, commands: ReadonlyMap<string, CustomCommand>): { prompt: string; allow: string[] } {
  const expanded = expandCommand(text, commands);
  return expanded ? { prompt: expanded.prompt, allow: expanded.command.allowedTools } : { prompt: text, allow: [] };
}
