import { stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readRegularText } from '../platform/regular-file.js';

/** An ignore file found and read: where it is (for rg) and what it says (for the JavaScript walk). */
export interface ExcludesFile {
  path: string;
  text: string;
}

/**
 * The user's git excludes file (`core.excludesFile`, default `$XDG_CONFIG_HOME/git/ignore`),
 * when it exists. Only the user's own config files are read (`$GIT_CONFIG_GLOBAL`, else
 * `$XDG_CONFIG_HOME/git/config` then `~/.gitconfig`, the later winning as in git), and by us:
 * git is not run, so nothing in a repository's config can make anything execute. Include
 * directives are not followed (ripgrep, which reads these files the same way, does not either).
 * A relative path is taken from `baseDir`.
 */
export async function userExcludesFile(env: NodeJS.ProcessEnv, baseDir: string): Promise<ExcludesFile | undefined> {
  const home = env.HOME || os.homedir();
  const configHome = env.XDG_CONFIG_HOME || path.join(home, '.config');
  const configs = env.GIT_CONFIG_GLOBAL
    ? [env.GIT_CONFIG_GLOBAL]
    : [path.join(configHome, 'git', 'config'), path.join(home, '.gitconfig')];
  let setting: string | undefined;
  for (const config of configs) {
    const text = await readRegularText(config);
    setting = (text === undefined ? undefined : excludesFileSetting(text)) ?? setting;
  }
  const file =
    setting === undefined
      ? path.join(configHome, 'git', 'ignore')
      : path.resolve(baseDir, setting.startsWith('~/') ? path.join(home, setting.slice(2)) : setting);
  const text = await readRegularText(file);
  return text === undefined ? undefined : { path: file, text };
}

/**
 * `core.excludesFile` in the text of a git config file: the `[core]` section's
 * `excludesFile` key (names case-insensitive), its value unquoted, a `#` or `;` comment cut.
 */
export function excludesFileSetting(configText: string): string | undefined {
  let inCore = false;
  let value: string | undefined;
  for (const raw of configText.split(/\r?\n/)) {
    let line = raw.trim();
    const header = /^\[([^\]]*)\](.*)$/.exec(line);
    if (header) {
      // `[core "sub"]` and `[core.sub]` are other sections.
      inCore = header[1].trim().toLowerCase() === 'core';
      line = header[2].trim();
    }
    if (!inCore) continue;
    const entry = /^excludesfile\s*=(.*)$/i.exec(line);
    if (entry) value = configValue(entry[1]);
  }
  return value === '' ? undefined : value;
}

/** A git config value: quotes removed, `\"` `\\` `\t` `\n` escapes read, a comment outside quotes cut. */
function configValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i];
    if (!quoted && (ch === '#' || ch === ';')) break;
    if (ch === '"') {
      quoted = !quoted;
    } else if (ch === '\\' && i + 1 < raw.length) {
      const next = raw[++i];
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
    } else {
      out += ch;
    }
  }
  return out.trim();
}

/**
 * The `info/exclude` file of the repository whose root is `dir`, if `dir` holds `.git`. In a
 * worktree `.git` is a file naming its git directory, whose `commondir` leads to the shared
 * one. Like ripgrep, nothing is read when there is no `commondir` (a submodule's `.git` file).
 */
export async function repositoryExcludeFile(dir: string): Promise<string | undefined> {
  const dotGit = path.join(dir, '.git');
  const info = await stat(dotGit).catch(() => undefined);
  if (!info) return undefined;
  if (info.isDirectory()) return path.join(dotGit, 'info', 'exclude');
  const first = ((await readRegularText(dotGit)) ?? '').split(/\r?\n/, 1)[0];
  if (!first.startsWith('gitdir: ')) return undefined;
  const gitDir = path.resolve(dir, first.slice('gitdir: '.length).trim());
  const common = ((await readRegularText(path.join(gitDir, 'commondir'))) ?? '').split(/\r?\n/, 1)[0].trim();
  return common === '' ? undefined : path.join(path.resolve(gitDir, common), 'info', 'exclude');
}
