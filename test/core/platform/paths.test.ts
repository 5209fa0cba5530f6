import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace, realPathOf, resolveWorkspacePath } from '../../../src/core/platform/paths.js';
import { type TempDir, tempDir } from '../tools/harness.js';

let dir: TempDir;
let outside: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  outside = tempDir('outrider-outside-');
  workspace = makeWorkspace(dir.root);
});
afterEach(() => {
  dir.cleanup();
  outside.cleanup();
});

const link = (target: string, name: string): void => symlinkSync(target, path.join(dir.root, name));
const resolve = (requested: string) => resolveWorkspacePath(workspace, requested);

describe('resolveWorkspacePath follows every link, the last one and dangling ones included', () => {
  it('a dangling link to a file outside', () => {
    link(path.join(outside.root, 'new.txt'), 'dangling');
    expect(resolve('dangling')).toMatchObject({ real: path.join(outside.root, 'new.txt'), inside: false });
  });

  it('a chain of links ending outside, relative and absolute', () => {
    link('./second', 'first');
    link(path.relative(dir.root, path.join(outside.root, 'new.txt')), 'second');
    expect(resolve('first')).toMatchObject({ real: path.join(outside.root, 'new.txt'), inside: false });
  });

  it('a dangling link used as a directory name', () => {
    link(path.join(outside.root, 'not-yet'), 'dir-link');
    expect(resolve('dir-link/deeper/x.txt')).toMatchObject({
      real: path.join(outside.root, 'not-yet', 'deeper', 'x.txt'),
      inside: false,
    });
  });

  it('a chain of directory links', () => {
    link('d2', 'd1');
    link(outside.root, 'd2');
    expect(resolve('d1/x.txt')).toMatchObject({ real: path.join(outside.root, 'x.txt'), inside: false });
  });

  it('a link whose target climbs out with ..', () => {
    mkdirSync(path.join(dir.root, 'sub'));
    symlinkSync(`../../${path.basename(outside.root)}/x.txt`, path.join(dir.root, 'sub', 'up'));
    expect(resolve('sub/up')).toMatchObject({ real: path.join(outside.root, 'x.txt'), inside: false });
  });

  it('links that stay inside, dangling or not, are inside', () => {
    dir.write('real.txt', 'x');
    link('real.txt', 'to-real');
    link('not-yet.txt', 'to-new');
    expect(resolve('to-real')).toMatchObject({ real: path.join(dir.root, 'real.txt'), inside: true });
    expect(resolve('to-new')).toMatchObject({ real: path.join(dir.root, 'not-yet.txt'), inside: true });
  });

  it('a loop of links is refused as outside, without hanging', () => {
    link('loop-b', 'loop-a');
    link('loop-a', 'loop-b');
    expect(resolve('loop-a/x.txt').inside).toBe(false);
    expect(resolve('loop-a').inside).toBe(false);
  });

  it('plain paths resolve as before', () => {
    expect(resolve('src/new/deep.ts')).toMatchObject({ real: path.join(dir.root, 'src', 'new', 'deep.ts'), inside: true });
    expect(realPathOf(path.join(dir.root, 'missing', '..', 'x'))).toBe(path.join(dir.root, 'x'));
  });
});
