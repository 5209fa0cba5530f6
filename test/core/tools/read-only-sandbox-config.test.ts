import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import {
  FIXED_GIT_OVERRIDES,
  gitConfigEnv,
  gitOverrides,
  hardenedPath,
  untrustedConfigNames,
} from '../../../src/core/platform/read-only-sandbox.js';
import { type TempDir, tempDir } from './harness.js';

// The sandbox's tables and helpers; read-only-sandbox.test.ts runs them against real git.

describe('hardenedPath', () => {
  let ws: TempDir;
  let outside: TempDir;
  beforeEach(() => {
    ws = tempDir();
    outside = tempDir('outrider-outside-');
  });
  afterEach(() => {
    ws.cleanup();
    outside.cleanup();
  });

  it('drops empty, relative and workspace entries, following symlinks', () => {
    const bin = path.join(ws.root, 'node_modules', '.bin');
    mkdirSync(bin, { recursive: true });
    const link = path.join(outside.root, 'looks-outside');
    execFileSync('ln', ['-s', bin, link]);
    const tools = path.join(outside.root, 'tools');
    const entries = ['/usr/bin', '', '.', 'bin', bin, link, `${ws.root}/sub/../bin`, tools, '/bin'];
    expect(hardenedPath(entries.join(':'), makeWorkspace(ws.root))).toBe(['/usr/bin', tools, '/bin'].join(':'));
    // An added directory is as writable as the root.
    expect(hardenedPath(entries.join(':'), makeWorkspace(ws.root, [outside.root]))).toBe('/usr/bin:/bin');
    expect(hardenedPath(undefined, makeWorkspace(ws.root))).toBe('');
  });
});

describe('gitOverrides', () => {
  const fixed = new Map(FIXED_GIT_OVERRIDES.map(([k, v]) => [k, v]));
  const overridesOf = (names: string[]) => new Map(gitOverrides(names));

  const TABLE: [string, string, string][] = [
    ['filter.lfs.clean', 'filter.lfs.clean', ''],
    ['filter.lfs.smudge', 'filter.lfs.smudge', ''],
    ['filter.lfs.process', 'filter.lfs.process', ''],
    ['filter.lfs.process', 'filter.lfs.required', 'false'],
    ['filter.a.b.clean', 'filter.a.b.required', 'false'],
    ['Filter.Evil.CLEAN', 'filter.Evil.clean', ''],
    ['diff.evil.textconv', 'diff.evil.textconv', 'cat'],
    ['merge.evil.driver', 'merge.evil.driver', 'false'],
    ['protocol.ext.allow', 'protocol.ext.allow', 'never'],
    ['pager.log', 'pager.log', 'false'],
  ];
  it.each(TABLE)('%s sets %s to %j', (name, key, value) => {
    expect(overridesOf([name]).get(key)).toBe(value);
  });

  it.each(['diff.evil.command', 'diff.external'])('%s gets a stand-in that refuses with a fix', (name) => {
    expect(overridesOf([name]).get(name)).toMatch(/^echo ".*external diff program.*--no-ext-diff.*" >&2; false$/);
  });

  it('leaves harmless names alone and always sets the fixed keys, last', () => {
    const pairs = gitOverrides(['user.name', 'core.fsmonitor', 'diff.evil.xfuncname', 'filter.x.y.z.w']);
    expect(pairs.slice(-FIXED_GIT_OVERRIDES.length)).toEqual(FIXED_GIT_OVERRIDES);
    expect(pairs).toHaveLength(FIXED_GIT_OVERRIDES.length);
  });

  // Keys no auto-allowed git reaches today (push, fetch, a terminal's pager); set all the same.
  it.each([
    ['core.fsmonitor', 'false'],
    ['core.hooksPath', '/dev/null'],
    ['core.pager', 'cat'],
    ['core.sshCommand', 'false'],
    ['core.alternateRefsCommand', 'false'],
    ['log.showSignature', 'false'],
    ['gpg.program', 'false'],
    ['gpg.ssh.program', 'false'],
    ['protocol.allow', 'never'],
    ['diff.ignoreSubmodules', 'all'],
  ])('always sets %s=%s', (key, value) => {
    expect(fixed.get(key)).toBe(value);
  });
});

describe('untrustedConfigNames', () => {
  const ws = makeWorkspace('/work/project', ['/work/added']);
  const entries = (...triples: [string, string, string][]) => `${triples.map((t) => t.join('\0')).join('\0')}\0`;

  it('keeps what local, worktree and unknown scopes set', () => {
    const output = entries(
      ['system', 'file:/etc/gitconfig', 'a.b'],
      ['global', 'file:/home/u/.gitconfig', 'filter.lfs.clean'],
      ['local', 'file:.git/config', 'diff.x.textconv'],
      ['worktree', 'file:.git/config.worktree', 'core.fsmonitor'],
      ['command', 'command line:', 'c.d'],
      ['odd', 'file:/etc/x', 'e.f'],
    );
    expect(untrustedConfigNames(output, ws)).toEqual(['diff.x.textconv', 'core.fsmonitor', 'e.f']);
    expect(untrustedConfigNames('', ws)).toEqual([]);
  });

  it('a trusted scope read from a file in the workspace, or from a relative path, is not trusted', () => {
    const output = entries(
      ['global', 'file:/work/project/.gitconfig', 'filter.a.clean'],
      ['global', 'file:/work/added/x/.config/git/config', 'filter.b.clean'],
      ['global', 'file:.gitconfig', 'filter.c.clean'],
      ['system', 'file:/work/project-other/gitconfig', 'filter.d.clean'],
    );
    expect(untrustedConfigNames(output, ws)).toEqual(['filter.a.clean', 'filter.b.clean', 'filter.c.clean']);
  });
});

describe('gitConfigEnv', () => {
  it('numbers the pairs from zero', () => {
    expect(
      gitConfigEnv({}, [
        ['a.b', '1'],
        ['c.d', ''],
      ]),
    ).toEqual({
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'a.b',
      GIT_CONFIG_VALUE_0: '1',
      GIT_CONFIG_KEY_1: 'c.d',
      GIT_CONFIG_VALUE_1: '',
    });
  });

  it("appends after the user's own entries, so ours come later and win", () => {
    expect(gitConfigEnv({ GIT_CONFIG_COUNT: '2' }, [['a.b', '1']])).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_2: 'a.b',
      GIT_CONFIG_VALUE_2: '1',
    });
    expect(gitConfigEnv({ GIT_CONFIG_COUNT: 'junk' }, [['a.b', '1']]).GIT_CONFIG_COUNT).toBe('1');
  });
});
