import { chmodSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExecutable } from '../../../src/core/platform/find-executable.js';
import { type TempDir, tempDir } from '../tools/harness.js';

let dir: TempDir;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

describe('findExecutable', () => {
  it('finds the first executable file of that name on the search path', async () => {
    const plain = dir.write('a/tool', 'not executable');
    const exe = dir.write('b/tool', '#!/bin/sh\n');
    chmodSync(exe, 0o755);
    dir.write('c/tool/inner', '');
    chmodSync(path.join(dir.root, 'c/tool'), 0o755);
    const searchPath = ['', path.dirname(plain), path.join(dir.root, 'c'), path.dirname(exe)].join(path.delimiter);
    expect(await findExecutable('tool', searchPath)).toBe(exe);
  });

  it('is undefined when nothing matches', async () => {
    expect(await findExecutable('surely-not-a-command-here', dir.root)).toBeUndefined();
  });
});
