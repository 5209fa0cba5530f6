import { type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { parseFrontMatter } from '../agents/front-matter.js';
import { readTextFile } from '../platform/read-text-file.js';
import { oneLine } from '../platform/text.js';
import { isMissing } from '../platform/fs-errors.js';
import { defineTool } from '../tools/define.js';
import { isWithin } from '../platform/paths.js';

/** A skill: a folder with a SKILL.md (name, description, instructions) and the files it refers to. */
export interface Skill {
  name: string;
  description: string;
  /** The SKILL.md body: what the `skill` tool returns. */
  body: string;
  /** The skill's folder (real path): its other files are listed for read_file. */
  dir: string;
  path: string;
}

/** Skills read from one folder, all together. */
export const MAX_SKILLS_PER_FOLDER = 200;
/** A SKILL.md larger than this is not read. */
export const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** About what the skill list in the tool's description may cost on every request. */
export const SKILL_CATALOGUE_BUDGET_BYTES = 3000;
/** Entries of a skill's folder listed for the model. */
const MAX_LISTED_FILES = 100;
const MAX_LISTED_DEPTH = 3;
const NAME = /^[a-z0-9][a-z0-9_.-]{0,63}$/;

/**
 * Reads `<folder>/<name>/SKILL.md` for each folder, in order, a later folder's skill replacing
 * an earlier one of the same name. A project's folder that is a link out of the project is not
 * read, nor a skill folder that links out of its skills folder.
 */
export function loadSkills(
  folders: readonly { dir: string; project: boolean }[],
  options: { projectRoot?: string } = {},
): { skills: Map<string, Skill>; warnings: string[] } {
  const skills = new Map<string, Skill>();
  const warnings: string[] = [];
  for (const folder of folders) {
    let root: string;
    try {
      root = realpathSync(folder.dir);
      if (!statSync(root).isDirectory()) continue;
    } catch (error) {
      if (!isMissing(error)) warnings.push(`${folder.dir}: cannot read the folder (${(error as Error).message})`);
      continue;
    }
    if (folder.project && options.projectRoot !== undefined && !isWithin(realOr(options.projectRoot), root)) {
      warnings.push(`${folder.dir}: a link to ${root}, outside the project; its skills are not read`);
      continue;
    }
    let entries: Dirent[];
    try {
      entries = readdirSync(root, { withFileTypes: true });
    } catch (error) {
      warnings.push(`${folder.dir}: cannot read the folder (${(error as Error).message})`);
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    let count = 0;
    for (const entry of entries) {
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      if (count >= MAX_SKILLS_PER_FOLDER) {
        warnings.push(`${folder.dir}: more than ${MAX_SKILLS_PER_FOLDER} skills; the rest (from ${entry.name} on) are not read`);
        break;
      }
      const skill = readSkill(root, path.join(folder.dir, entry.name), warnings);
      if (!skill) continue;
      count++;
      skills.set(skill.name, skill);
    }
  }
  return { skills, warnings };
}

function readSkill(root: string, shown: string, warnings: string[]): Skill | undefined {
  let dir: string;
  try {
    dir = realpathSync(path.join(root, path.basename(shown)));
    if (!statSync(dir).isDirectory()) return undefined;
  } catch {
    return undefined;
  }
  if (!isWithin(root, dir)) {
    warnings.push(`${shown}: links outside its skills folder (to ${dir}); not read`);
    return undefined;
  }
  const file = path.join(shown, 'SKILL.md');
  let text: string;
  try {
    const read = readTextFile(path.join(dir, 'SKILL.md'), MAX_SKILL_FILE_BYTES);
    if (read.cut) {
      warnings.push(`${file}: ${read.size} bytes; SKILL.md files over ${MAX_SKILL_FILE_BYTES / 1024} KB are not read`);
      return undefined;
    }
    text = read.text;
  } catch (error) {
    // A folder without SKILL.md is something else kept beside the skills.
    if (!isMissing(error)) warnings.push(`${file}: cannot read the file (${(error as Error).message})`);
    return undefined;
  }
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    warnings.push(`${file}: ${parsed.error}`);
    return undefined;
  }
  const folderName = path.basename(shown);
  const given = parsed.data.name;
  const name = typeof given === 'string' && given.trim() ? given.trim() : folderName;
  if (!NAME.test(name)) {
    warnings.push(`${file}: name ${JSON.stringify(name)}: expected lowercase letters, digits, "-", "_" or ".", at most 64`);
    return undefined;
  }
  const description = parsed.data.description;
  if (typeof description !== 'string' || !description.trim()) {
    warnings.push(`${file}: description: required, so the model knows when to use the skill`);
    return undefined;
  }
  return { name, description: oneLine(description, 1024), body: parsed.body, dir, path: file };
}

/**
 * The skills named in the tool's description, each with its description's start, up to
 * `budget` bytes; what does not fit is named without a description, then counted.
 */
export function skillCatalogue(skills: readonly Skill[], budget = SKILL_CATALOGUE_BUDGET_BYTES): string {
  const lines: string[] = [];
  let used = 0;
  let shown = 0;
  for (const skill of skills) {
    const full = `- ${skill.name}: ${oneLine(skill.description, 200)}`;
    const entry = used + Buffer.byteLength(full) + 1 <= budget ? full : `- ${skill.name}`;
    if (used + Buffer.byteLength(entry) + 1 > budget) break;
    lines.push(entry);
    used += Buffer.byteLength(entry) + 1;
    shown++;
  }
  const left = skills.length - shown;
  return lines.join('\n') + (left > 0 ? `\n…and ${left} more skills not listed.` : '');
}

/** `skill {name}`: loads a skill's instructions when the model decides it needs them. */
export function skillTool(skills: ReadonlyMap<string, Skill>) {
  const list = [...skills.values()];
  return defineTool({
    name: 'skill',
    description:
      'Load a skill: instructions for a kind of task, with files of its own. Call it when a task matches a ' +
      "skill's description, then follow what it says; its other files are listed for read_file.\n" +
      `Skills:\n${skillCatalogue(list)}`,
    kind: 'read-only',
    schema: z.object({ name: z.string().trim().min(1, 'name the skill to load').max(200) }),
    label: (args) => args.name,
    execute: async (args) => {
      const skill = skills.get(args.name);
      if (!skill) {
        const names = list.map((s) => s.name);
        return {
          content: `No skill named ${JSON.stringify(oneLine(args.name, 80))}. Skills: ${names.join(', ') || 'none'}.`,
          isError: true,
        };
      }
      const files = listSkillFiles(skill.dir);
      const listing = files.length
        ? `\n\nOther files of this skill, under ${skill.dir} (read them with read_file when the instructions point to them):\n` +
          files.map((file) => `- ${file}`).join('\n')
        : '';
      return `Skill ${skill.name} (${skill.path}):\n\n${skill.body}${listing}`;
    },
  });
}

/** The skill folder's files besides SKILL.md, relative paths, bounded; links are not followed. */
export function listSkillFiles(dir: string): string[] {
  const files: string[] = [];
  let more = false;
  const walk = (folder: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const full = path.join(folder, entry.name);
      const relative = path.relative(dir, full);
      if (entry.isDirectory()) {
        if (depth < MAX_LISTED_DEPTH) walk(full, depth + 1);
        continue;
      }
      if (!entry.isFile() || relative === 'SKILL.md') continue;
      if (files.length >= MAX_LISTED_FILES) {
        more = true;
        return;
      }
      files.push(relative);
    }
  };
  walk(dir, 0);
  if (more) files.push(`(more files not listed; list_dir ${dir} shows them)`);
  return files;
}

function realOr(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}
