import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Workspace } from '../../../src/core/tools/define.js';
import { makeWorkspace } from '../../../src/core/platform/paths.js';
import { createReadFileTool } from '../../../src/core/tools/read-file.js';
import { type TempDir, run, tempDir } from './harness.js';

let dir: TempDir;
let workspace: Workspace;
beforeEach(() => {
  dir = tempDir();
  workspace = makeWorkspace(dir.root);
});
afterEach(() => dir.cleanup());

describe('read_file with a text source (an editor over ACP)', () => {
  it("takes the source's text for a regular file, paged and numbered as from the disk", async () => {
    dir.write('a.ts', 'on disk\n');
    const asked: string[] = [];
    const tool = createReadFileTool({
      source: async (file) => {
        asked.push(file);
        return 'one\ntwo\nthree\n';
      },
    });
    expect(await run(tool, { path: 'a.ts', offset: 2, limit: 1 }, { workspace })).toEqual({
      content: '     2\ttwo\n\n[Lines 2-2 of 3. Read on with offset=3.]',
    });
    expect(asked).toEqual([`${workspace.root}/a.ts`]);
  });

  it('falls back to the disk when the source fails or has nothing, and never asks about what is not a regular file', async () => {
    dir.write('a.ts', 'on disk\n');
    let calls = 0;
    const failing = createReadFileTool({
      source: async () => {
        calls += 1;
        throw new Error('the editor went away');
      },
    });
    expect(await run(failing, { path: 'a.ts' }, { workspace })).toEqual({ content: '     1\ton disk' });
    const empty = createReadFileTool({ source: async () => undefined });
    expect(await run(empty, { path: 'a.ts' }, { workspace })).toEqual({ content: '     1\ton disk' });
    expect(await run(failing, { path: 'missing.ts' }, { workspace })).toMatchObject({ isError: true });
    expect(calls).toBe(1);
  });

  it("treats a source's text with a NUL in it as binary", async () => {
    dir.write('b.bin', 'x');
    const tool = createReadFileTool({ source: async () => 'a\u0000b' });
    expect(await run(tool, { path: 'b.bin' }, { workspace })).toMatchObject({
      isError: true,
      content: expect.stringContaining('binary'),
    });
  });
});
