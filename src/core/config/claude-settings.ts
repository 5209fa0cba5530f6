/**
 * Claude Code's settings files read as settings layers: `~/.claude/settings.json` (the
 * user's), `.claude/settings.json` and `.claude/settings.local.json` (the project's, under the
 * same trust rules as `.outrider/settings.json`). Their permission rules, hooks, model,
 * default mode, extra directories and status lines are taken; every other key is named once, never dropped
 * without a word. A file that cannot be read is reported and left out: it is another tool's.
 */
import path from 'node:path';
import { ruleProblem } from '../permissions/rules.js';
import { parseJsonc } from './jsonc.js';
import { ConfigFileError, readConfigFile } from './read-config-file.js';
import { MAX_SETTINGS_BYTES, type Settings, SettingsError, validateSettings } from './settings.js';

/** Which settings files a run reads (`--setting-sources`): the user's, the project's shared ones, its local one. */
export type SettingSource = 'user' | 'project' | 'local';
export const SETTING_SOURCES: readonly SettingSource[] = ['user', 'project', 'local'];

/** Claude Code's settings files for a project and a home folder. */
export function claudeSettingsPaths(cwd: string, home: string | undefined): Record<SettingSource, string | undefined> {
  const root = path.resolve(cwd);
  return {
    user: home ? path.join(home, '.claude', 'settings.json') : undefined,
    project: path.join(root, '.claude', 'settings.json'),
    local: path.join(root, '.claude', 'settings.local.json'),
  };
}

/** One Claude Code settings file as outrider settings, with what could not be taken. */
export interface ClaudeSettingsFile {
  file: string;
  settings: Settings;
  warnings: string[];
}

/** Claude Code's permission modes → outrider's. */
const MODES: Readonly<Record<string, NonNullable<Settings['permissionMode']>>> = {
  default: 'default',
  acceptEdits: 'accept-edits',
  plan: 'plan',
  bypassPermissions: 'yolo',
};

/** Keys that say nothing about how the agent behaves here: not worth a warning. */
const QUIET_KEYS = new Set(['$schema', 'feedbackSurveyState', 'spinnerTipsEnabled', 'theme']);

/** Reads one Claude Code settings file; undefined when it does not exist. */
export function readClaudeSettings(file: string): ClaudeSettingsFile | undefined {
  let text: string | undefined;
  try {
    text = readConfigFile(file, { maxBytes: MAX_SETTINGS_BYTES, what: 'settings file' });
  } catch (error) {
    if (!(error instanceof ConfigFileError)) throw error;
    return { file, settings: {}, warnings: [`${error.message}; its settings are not used`] };
  }
  if (text === undefined) return undefined;
  return parseClaudeSettings(text, file);
}

/**
 * Claude Code's settings text → outrider settings: each key taken on its own, so one key
 * outrider cannot read (or reads as wrong) costs that key alone, said in a warning.
 */
export function parseClaudeSettings(text: string, file: string): ClaudeSettingsFile {
  const parsed = parseJsonc(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) {
    return {
      file,
      settings: {},
      warnings: [
        `${file}: invalid JSON at line ${parsed.line}, column ${parsed.column}: ${parsed.reason}; its settings are not used`,
      ],
    };
  }
  const raw = parsed.value ?? {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { file, settings: {}, warnings: [`${file}: expected a JSON object of settings; its settings are not used`] };
  }
  const warnings: string[] = [];
  const unhonoured: string[] = [];
  const settings: Record<string, unknown> = {};
  const take = (key: keyof Settings, value: unknown, shownAs: string) => {
    try {
      const checked = validateSettings({ [key]: value }, file);
      settings[key] = checked[key];
    } catch (error) {
      if (!(error instanceof SettingsError)) throw error;
      warnings.push(`${error.message.replace(`${file}: ${key}`, `${file}: ${shownAs}`)}; left out`);
    }
  };
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (value === undefined || QUIET_KEYS.has(key)) continue;
    switch (key) {
      case 'permissions':
        readPermissions(value, file, warnings, unhonoured, take);
        break;
      case 'hooks':
        take('hooks', value, 'hooks');
        break;
      case 'model':
        take('model', value, 'model');
        break;
      case 'statusLine':
      case 'subagentStatusLine':
        take(key, value, key);
        break;
      default:
        unhonoured.push(key);
    }
  }
  if (unhonoured.length) {
    warnings.push(
      `${file}: outrider does not honour ${unhonoured.map((k) => JSON.stringify(k)).join(', ')} (see docs/claude-code.md)`,
    );
  }
  return { file, settings: settings as Settings, warnings };
}

function readPermissions(
  value: unknown,
  file: string,
  warnings: string[],
  unhonoured: string[],
  take: (key: keyof Settings, value: unknown, shownAs: string) => void,
): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    warnings.push(`${file}: permissions: expected an object such as { "deny": ["Read(./.env)"] }; left out`);
    return;
  }
  const lists: { allow?: string[]; ask?: string[]; deny?: string[] } = {};
  for (const [key, entry] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'allow' || key === 'ask' || key === 'deny') {
      if (!Array.isArray(entry)) {
        warnings.push(`${file}: permissions.${key}: expected a list of rules; left out`);
        continue;
      }
      const rules: string[] = [];
      entry.forEach((rule: unknown, i) => {
        const problem = typeof rule === 'string' ? ruleProblem(rule) : 'not a string';
        if (problem) warnings.push(`${file}: permissions.${key}[${i}]: ${problem}; left out`);
        else rules.push((rule as string).trim());
      });
      lists[key] = rules;
    } else if (key === 'defaultMode') {
      const mode = typeof entry === 'string' && Object.hasOwn(MODES, entry) ? MODES[entry] : undefined;
      if (mode) take('permissionMode', mode, 'permissions.defaultMode');
      else unhonoured.push(`permissions.defaultMode: ${JSON.stringify(entry)}`);
    } else if (key === 'additionalDirectories') {
      take('addDirs', entry, 'permissions.additionalDirectories');
    } else {
      unhonoured.push(`permissions.${key}`);
    }
  }
  if (Object.keys(lists).length) take('permissions', lists, 'permissions');
}
