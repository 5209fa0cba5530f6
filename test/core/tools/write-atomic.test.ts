import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type TempDir, tempDir } from './harness.js';

// kill -9 in the middle of write_file must leave the old file whole. The write runs in a
// child process (the real tool, bundled from src), which is killed as soon as the write is
// seen to be under way: a new entry in the folder or any change to the target.

const SIZE = 100 * 1024 * 1024;
const OLD = 'the old content, which must survive\n';

let dir: TempDir;
let build: TempDir;
beforeEach(() => {
  dir = tempDir();
  build = tempDir('outrider-build-');
});
afterEach(() => {
  dir.cleanup();
  build.cleanup();
});

/** Bundles a script that runs write_file or edit_file on argv: root, path, size. */
function bundleWriter(tool: 'write' | 'edit'): string {
  const src = path.resolve(import.meta.dirname, '../../../src/core/tools');
  const entry = build.write(
    'entry.ts',
    [
      `import { writeFileTool } from ${JSON.stringify(path.join(src, 'write-file.ts'))};`,
      `import { editFileTool } from ${JSON.stringify(path.join(src, 'edit-file.ts'))};`,
      `import { makeWorkspace } from ${JSON.stringify(path.join(src, '../platform/paths.ts'))};`,
      'const [root, rel, size] = process.argv.slice(2);',
      "const big = 'x'.repeat(Number(size));",
      'const ctx = { signal: new AbortController().signal, workspace: makeWorkspace(root) };',
      "process.stdout.write('ready\\n');",
      tool === 'write'
        ? 'await writeFileTool.execute({ path: rel, content: big }, ctx);'
        : "await editFileTool.execute({ path: rel, old_string: 'old', new_string: big }, ctx);",
      "process.stdout.write('done\\n');",
    ].join('\n'),
  );
  const outfile = path.join(build.root, 'writer.mjs');
  buildSync({ entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', logLevel: 'silent' });
  return outfile;
}

function untilReady(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => text.includes('ready') && resolve());
    child.on('exit', (code) => reject(new Error(`writer exited (${code}) before it was ready`)));
  });
}

const exited = (child: ChildProcess): Promise<void> => new Promise((resolve) => child.once('exit', () => resolve()));

describe.each(['write', 'edit'] as const)('kill -9 during %s_file', (tool) => {
  it('leaves the old content whole', async () => {
    const writer = bundleWriter(tool);
    const target = dir.write('big.txt', OLD);
    const before = statSync(target);
    const child = spawn(process.execPath, [writer, dir.root, 'big.txt', String(SIZE)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const gone = exited(child);
    await untilReady(child);

    const underway = (): boolean => {
      if (readdirSync(dir.root).length > 1) return true;
      const now = statSync(target);
      return now.size !== before.size || now.ino !== before.ino || now.mtimeMs !== before.mtimeMs;
    };
    const deadline = Date.now() + 20_000;
    while (!underway() && child.exitCode === null && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    const midWrite = child.exitCode === null;
    child.kill('SIGKILL');
    await gone;

    const after = readFileSync(target);
    const whole = after.equals(Buffer.from(OLD)) || (after.length === SIZE && after.every((b) => b === 0x78));
    expect(whole, `big.txt is ${after.length} bytes: neither the old content nor the new`).toBe(true);
    // The usual case: killed before the rename, so the old file is there, untouched.
    if (midWrite && readdirSync(dir.root).length > 1) expect(after.toString()).toBe(OLD);
  }, 60_000);
});

describe('the write goes to a temporary file in the same folder, renamed into place', () => {
  it('the target is never seen truncated while a large write is under way', async () => {
    const writer = bundleWriter('write');
    const target = dir.write('big.txt', OLD);
    const child = spawn(process.execPath, [writer, dir.root, 'big.txt', String(SIZE)], { stdio: ['ignore', 'pipe', 'inherit'] });
    const gone = exited(child);
    await untilReady(child);
    const seen = new Set<number>();
    const temps = new Set<string>();
    while (child.exitCode === null) {
      seen.add(statSync(target).size);
      for (const name of readdirSync(dir.root)) if (name !== 'big.txt') temps.add(name);
      await new Promise((r) => setImmediate(r));
    }
    await gone;
    seen.add(statSync(target).size);
    expect([...seen].every((size) => size === OLD.length || size === SIZE)).toBe(true);
    expect([...temps].every((name) => name.startsWith('.big.txt.') && name.endsWith('.tmp'))).toBe(true);
    expect(readdirSync(dir.root)).toEqual(['big.txt']);
    writeFileSync(target, ''); // free the space early
  }, 60_000);
});
