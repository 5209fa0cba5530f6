import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { outriderPaths, projectPaths } from '../../../src/core/config/paths.js';
import {
  SETTINGS_DEFAULTS,
  type Settings,
  SettingsError,
  mergeSettings,
  parseSettings,
  readSettingsFiles,
  settingsSchema,
  validateSettings,
} from '../../../src/core/config/settings.js';
import { SETTING_TRUST } from '../../../src/core/config/setting-trust.js';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'outrider-settings-'));
}

function writeJson(file: string, body: unknown): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return file;
}

/** The SettingsError a settings text raises, as the user would read it. */
function errorOf(text: string, file = '/x/.outrider/settings.json'): SettingsError {
  try {
    parseSettings(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(SettingsError);
    return error as SettingsError;
  }
  throw new Error(`expected ${text} to be rejected`);
}

describe('settings errors', () => {
  it('names the file, key and expectation in one line for a value out of range', () => {
    const error = errorOf('{ "agents": { "maxConcurrent": "four" } }');
    expect(error.message).toBe(
      '/x/.outrider/settings.json: agents.maxConcurrent: expected a whole number from 0 to 32, got "four"',
    );
    expect(error.message).not.toContain('\n');
    expect(error.file).toBe('/x/.outrider/settings.json');
    expect(error.keyPath).toBe('agents.maxConcurrent');
    expect(errorOf('{ "agents": { "maxConcurrent": 40 } }').message).toMatch(
      /agents\.maxConcurrent: expected a whole number from 0 to 32, got 40$/,
    );
    expect(errorOf('{ "agents": { "maxConcurrent": 2.5 } }').message).toMatch(/got 2\.5$/);
    expect(errorOf('{ "maxRetries": -1 }').message).toMatch(/: maxRetries: expected a whole number from 0 to 10, got -1$/);
    expect(errorOf('{ "maxTurns": 0 }').message).toMatch(/: maxTurns: expected a whole number of at least 1, got 0$/);
    expect(errorOf('{ "firstByteTimeoutMs": 0 }').message).toMatch(
      /: firstByteTimeoutMs: expected a whole number of at least 1, got 0$/,
    );
    expect(errorOf('{ "idleTimeoutMs": "3m" }').message).toMatch(
      /: idleTimeoutMs: expected a whole number of at least 1, got "3m"$/,
    );
    expect(parseSettings('{ "firstByteTimeoutMs": 90000, "idleTimeoutMs": 300000 }', '/x')).toEqual({
      firstByteTimeoutMs: 90000,
      idleTimeoutMs: 300000,
    });
  });

  it('reports wrong types with what was found', () => {
    expect(errorOf('{ "provider": "gemini" }').message).toBe(
      '/x/.outrider/settings.json: provider: expected one of "anthropic", "openai", got "gemini"',
    );
    expect(errorOf('{ "permissionMode": true }').message).toMatch(
      /permissionMode: expected one of "default", "accept-edits", "plan", "yolo", got true$/,
    );
    expect(errorOf('{ "wakeOnComplete": "yes" }').message).toMatch(/wakeOnComplete: expected true or false, got "yes"$/);
    expect(errorOf('{ "addDirs": "../lib" }').message).toMatch(/addDirs: expected a list of directory paths, got "..\/lib"$/);
    expect(errorOf('{ "addDirs": ["a", 3] }').message).toMatch(/addDirs\[1\]: expected a directory path \(a string\), got 3$/);
    expect(errorOf('{ "baseURL": "localhost:8080" }').message).toMatch(/baseURL: expected an http\(s\) URL/);
    expect(errorOf('{ "agents": 4 }').message).toMatch(/: agents: expected an object such as \{ "maxConcurrent": 4 \}, got 4$/);
    expect(errorOf('[1, 2]').message).toBe('/x/.outrider/settings.json: expected a JSON object of settings, got a list [1,2]');
  });

  it('quotes model ids that are not plain names in the key path', () => {
    const error = errorOf('{ "models": { "gpt-4.1": { "inputPrice": "cheap" } } }');
    expect(error.message).toBe(
      '/x/.outrider/settings.json: models["gpt-4.1"].inputPrice: expected a price in dollars per million tokens (0 or more), got "cheap"',
    );
    expect(errorOf('{ "models": { "m": { "contextWindow": -5 } } }').message).toMatch(/models\.m\.contextWindow: expected/);
  });

  it('rejects unknown keys at every level, suggesting the close one', () => {
    expect(errorOf('{ "modle": "x" }').message).toMatch(
      /^\/x\/\.outrider\/settings\.json: modle: unknown setting \(did you mean "model"\?\); expected one of provider, model, /,
    );
    expect(errorOf('{ "agents": { "maxTurn": 3 } }').message).toMatch(
      /: agents\.maxTurn: unknown setting \(did you mean "maxTurns"\?\); expected one of maxConcurrent, /,
    );
    const entry = errorOf('{ "models": { "m": { "contextWindow": 1000, "price": 2 } } }');
    expect(entry.message).toMatch(/: models\.m\.price: unknown setting; expected one of contextWindow, maxOutput, /);
    expect(entry.keyPath).toBe('models.m.price');
  });

  it('points at the line and column of bad JSON', () => {
    const text = '{\n  "model": "x",\n  "maxTurns": tru\n}';
    expect(errorOf(text).message).toBe(
      '/x/.outrider/settings.json: invalid JSON at line 3, column 15: expected a value (a string in double quotes, number, object, list, true, false or null), found "tru"',
    );
    expect(errorOf('{ "model": "x" "maxTurns": 3 }').message).toMatch(
      /: invalid JSON at line 1, column 16: expected "," between two entries, found "\\"maxTurns\\""$/,
    );
    expect(errorOf('{ "model": "x"').message).toMatch(
      /line 1, column 15: expected "}" to close the object, found the end of the file$/,
    );
    expect(errorOf('{ "addDirs": ["a"').message).toMatch(
      /line 1, column 18: expected "]" to close the list, found the end of the file$/,
    );
    expect(errorOf('{ "model" "x" }').message).toMatch(/line 1, column 11: expected ":" after the key, found "\\"x\\""$/);
    expect(errorOf("{ 'model': 'x' }").message).toMatch(
      /line 1, column 3: expected a value \(a string in double quotes, .*found "'model'"$/,
    );
    expect(errorOf('{ "model": "a\nb" }').message).toMatch(
      /line 1, column 12: a string is not closed before the end of the line; add the closing "$/,
    );
    expect(errorOf('{\n  "model": "x"\n}\n{}').message).toMatch(
      /line 4, column 1: expected nothing after the JSON value, found "{"$/,
    );
    expect(errorOf('{\r\n  "model": "x",\r\n  "maxTurns": tru\r\n}').message).toMatch(/line 3, column 15: .*found "tru"$/);
    expect(errorOf('{ /* "model": "x" }').message).toMatch(
      /line 1, column 3: a comment opened with \/\* is never closed; add \*\/$/,
    );
    for (const broken of ['{ "model": }', '[1, 2', '{ "a": "\\q" }']) expect(errorOf(broken).message).not.toContain('\n');
  });

  it('accepts comments and trailing commas, as editors write settings files', () => {
    const text =
      '{\n  // which model\n  "model": "x", /* for now */\n  "addDirs": ["../lib", "../docs",],\n  "agents": { "maxConcurrent": 2, },\n}\n';
    expect(parseSettings(text, 'f')).toEqual({ model: 'x', addDirs: ['../lib', '../docs'], agents: { maxConcurrent: 2 } });
    expect(parseSettings('// nothing set yet\n', 'f')).toEqual({});
    expect(parseSettings('/* nothing */', 'f')).toEqual({});
  });

  it('reads "__proto__" as a key like any other, so it cannot carry settings past the unknown-key check', () => {
    const error = errorOf('{ "__proto__": { "permissionMode": "yolo" } }');
    expect(error.message).toMatch(/^\/x\/\.outrider\/settings\.json: __proto__: unknown setting; expected one of provider, /);
    expect(errorOf('{ "agents": { "__proto__": { "maxConcurrent": 99 } } }').keyPath).toBe('agents.__proto__');
  });

  it('says when the settings path is a folder', () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'settings.json'));
    expect(() => readSettingsFiles({ userPath: path.join(dir, 'settings.json') })).toThrow(
      /settings\.json: cannot read the settings file: it is a directory, not a regular file$/,
    );
  });

  it('refuses a FIFO without waiting for a writer, and a device, naming the file', () => {
    const fifo = path.join(tempDir(), 'settings.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => readSettingsFiles({ projectPath: fifo })).toThrow(
      `${fifo}: cannot read the settings file: it is a FIFO (named pipe), not a regular file`,
    );
    expect(() => readSettingsFiles({ projectPath: '/dev/zero' })).toThrow(
      '/dev/zero: cannot read the settings file: it is a device, not a regular file',
    );
  });

  it('refuses a file over 1 MB with its size', () => {
    const file = writeJson(path.join(tempDir(), 'settings.json'), `{ "model": "${'m'.repeat(1024 * 1024)}" }`);
    expect(() => readSettingsFiles({ userPath: file })).toThrow(`${file}: the settings file is 1.0 MB; the limit is 1 MB`);
  });

  it('refuses nesting past 64 levels at the bracket that goes too deep, naming the file', () => {
    const deep = `{ "models": ${'['.repeat(100_000)}${']'.repeat(100_000)} }`;
    expect(errorOf(deep).message).toBe(
      '/x/.outrider/settings.json: nested more than 64 levels deep at line 1, column 76; settings nest a few levels at most',
    );
    // Brackets inside strings and comments are not nesting.
    expect(parseSettings(`{ "model": "${'['.repeat(100)}" /* ${'{'.repeat(100)} */ }`, 'f')).toEqual({ model: '['.repeat(100) });
    // Levels counted from the outer object: 64 parse (and fail the schema), 65 do not.
    const nested = (levels: number) => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
    expect(errorOf(nested(64)).message).not.toContain('nested');
    expect(errorOf(nested(65)).message).toContain('nested more than 64 levels deep');
  });

  it('validates a layer of flags with the source named', () => {
    expect(() => validateSettings({ agents: { maxConcurrent: 33 } }, '--max-agents')).toThrow(
      '--max-agents: agents.maxConcurrent: expected a whole number from 0 to 32, got 33',
    );
  });
});

describe('reading the settings files', () => {
  it('reads both files as separate layers (trust decides how the project merges)', () => {
    const home = tempDir();
    const root = tempDir();
    const user = writeJson(outriderPaths({ OUTRIDER_HOME: home }).userSettings, { model: 'user-model', maxTurns: 5 });
    const project = writeJson(projectPaths(root).settings, { model: 'project-model', addDirs: ['/p'] });
    expect(readSettingsFiles({ userPath: user, projectPath: project })).toEqual({
      user: { model: 'user-model', maxTurns: 5 },
      project: { model: 'project-model', addDirs: ['/p'] },
      sources: [user, project],
    });
  });

  it('is fine with missing files and lists only those read', () => {
    const root = tempDir();
    const project = writeJson(projectPaths(root).settings, { toolMode: 'text' });
    const missing = path.join(tempDir(), 'settings.json');
    expect(readSettingsFiles({ userPath: missing, projectPath: project })).toEqual({
      user: {},
      project: { toolMode: 'text' },
      sources: [project],
    });
    expect(readSettingsFiles({ userPath: missing })).toEqual({ user: {}, project: {}, sources: [] });
  });

  it('stops at the first invalid file, naming it', () => {
    const home = tempDir();
    const user = writeJson(path.join(home, 'settings.json'), '{ "maxTurns": "many" }');
    const project = writeJson(projectPaths(tempDir()).settings, { model: 'm' });
    expect(() => readSettingsFiles({ userPath: user, projectPath: project })).toThrow(
      `${user}: maxTurns: expected a whole number of at least 1, got "many"`,
    );
  });

  it('names the file, line and column of a settings file that is not valid JSON', () => {
    const user = writeJson(path.join(tempDir(), 'settings.json'), '{\n  // mine\n  "model": "x"\n  "maxTurns": 3\n}\n');
    expect(() => readSettingsFiles({ userPath: user })).toThrow(
      `${user}: invalid JSON at line 4, column 3: expected "," between two entries, found "\\"maxTurns\\""`,
    );
  });
});

describe('settings precedence', () => {
  it('merges one level deep for models and agents, replaces everything else', () => {
    const user: Settings = {
      provider: 'anthropic',
      model: 'user-model',
      maxTurns: 5,
      addDirs: ['/u'],
      models: { a: { contextWindow: 1000, inputPrice: 1 }, b: { contextWindow: 2000 } },
      agents: { maxConcurrent: 2, pollTimeoutMs: 1000 },
    };
    const project = { model: 'project-model', addDirs: ['/p'], models: { b: { maxOutput: 10 } }, agents: { maxConcurrent: 8 } };
    expect(mergeSettings(user, project)).toEqual({
      provider: 'anthropic',
      model: 'project-model',
      maxTurns: 5,
      addDirs: ['/p'],
      // one level deep: model ids merge, an id's entry is the later layer's whole
      models: { a: { contextWindow: 1000, inputPrice: 1 }, b: { maxOutput: 10 } },
      agents: { maxConcurrent: 8, pollTimeoutMs: 1000 },
    });
  });

  it('orders flag > project > user > defaults, undefined flags changing nothing', () => {
    const user = { model: 'user', permissionMode: 'plan', maxTurns: 3, agents: { maxConcurrent: 2 } } as const;
    const project = { model: 'project', agents: { maxTurns: 7 } } as const;
    const flags = { model: 'flag', maxTurns: undefined, agents: { maxConcurrent: 16, maxTurns: undefined } };
    const merged = mergeSettings(SETTINGS_DEFAULTS, user, project, flags);
    expect(merged.model).toBe('flag');
    expect(merged.permissionMode).toBe('plan');
    expect(merged.maxTurns).toBe(3);
    expect(merged.toolMode).toBe('native');
    expect(merged.agents).toEqual({ ...SETTINGS_DEFAULTS.agents, maxConcurrent: 16, maxTurns: 7 });
    expect(mergeSettings(SETTINGS_DEFAULTS, user).permissionMode).toBe('plan');
    expect(mergeSettings(SETTINGS_DEFAULTS).permissionMode).toBe('default');
  });

  it('never shares objects with its layers', () => {
    const layer = { addDirs: ['/a'], agents: { maxConcurrent: 2 }, models: { m: { contextWindow: 10 } } };
    const merged = mergeSettings(layer);
    merged.addDirs?.push('/b');
    merged.agents!.maxConcurrent = 9;
    merged.models!.m.contextWindow = 99;
    expect(layer).toEqual({ addDirs: ['/a'], agents: { maxConcurrent: 2 }, models: { m: { contextWindow: 10 } } });
    expect(SETTINGS_DEFAULTS.agents?.maxConcurrent).toBe(4);
    mergeSettings(SETTINGS_DEFAULTS).agents!.maxConcurrent = 1;
    expect(SETTINGS_DEFAULTS.agents?.maxConcurrent).toBe(4);
  });
});

describe('the trust rule of every key', () => {
  it('covers every key of the schema', () => {
    expect(Object.keys(SETTING_TRUST).sort()).toEqual(Object.keys(settingsSchema.shape).sort());
  });

  it('guards every key whose name says it starts a program, holds a secret, names a server or loosens a sandbox', () => {
    const dangerous =
      /key|token|secret|password|auth|url|host|endpoint|server|hook|mcp|command|exec|shell|env|sandbox|permission|dir|provider/i;
    // Names that only look dangerous, each with the reason it is not.
    const lookalikes: Record<string, string> = {
      maxTokens: 'a limit on output tokens, not a token',
      mcp: 'timeouts of MCP servers and calls; the servers themselves are mcpServers, guarded',
    };
    const free = Object.entries(SETTING_TRUST)
      .filter(([name, rule]) => dangerous.test(name) && rule.kind === 'free' && !(name in lookalikes))
      .map(([name]) => name);
    expect(free).toEqual([]);
  });
});
