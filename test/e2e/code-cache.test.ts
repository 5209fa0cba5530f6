/**
 * The launcher runs `-p` from dist/headless.cjs through bin/code-cache.js, with a V8 code cache
 * in outrider's home. Needs `npm run build`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { REPO, runCli } from '../support/run-cli.js';

const t = useMockProject();

const cacheDir = () => path.join(t.home, 'cache');
const cacheFiles = () => (existsSync(cacheDir()) ? readdirSync(cacheDir()) : []);

/** One headless prompt (the CommonJS bundle and its code cache); returns what it printed. */
async function ask(prompt: string, env: Record<string, string> = {}): Promise<string> {
  t.mock.script({ text: `answer to ${prompt}` });
  const result = await runCli(['-p', prompt], { cwd: t.project, env: { ...t.env, ...env } });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return result.stdout;
}

describe('the headless bundle and its code cache', () => {
  it('the first run leaves one cache for this bundle and Node; the next run takes it as it is', async () => {
    expect(await ask('one')).toBe('answer to one\n');
    const size = statSync(path.join(REPO, 'dist/headless.cjs')).size;
    expect(cacheFiles()).toEqual([
      expect.stringMatching(new RegExp(`^headless-${process.version}-${process.arch}-${size}-\\d+\\.v8$`)),
    ]);
    const file = path.join(cacheDir(), cacheFiles()[0]!);
    const written = { bytes: readFileSync(file), mtimeMs: statSync(file).mtimeMs };
    expect(written.bytes.length).toBeGreaterThan(100_000);
    expect(statSync(cacheDir()).mode & 0o777).toBe(0o700);

    expect(await ask('two')).toBe('answer to two\n');
    // V8 took it: a rejected cache would have been written again at exit.
    expect(cacheFiles()).toHaveLength(1);
    expect(statSync(file).mtimeMs).toBe(written.mtimeMs);
    expect(readFileSync(file).equals(written.bytes)).toBe(true);
  });

  it('a damaged cache is never given to V8 (a release build would crash on it): it is replaced, the run goes on', async () => {
    await ask('one');
    const file = path.join(cacheDir(), cacheFiles()[0]!);
    const good = readFileSync(file);
    const damaged = Buffer.from(good);
    damaged.fill(0x41, 64, 4096);
    writeFileSync(file, damaged);
    expect(await ask('two')).toBe('answer to two\n');
    expect(readFileSync(file).equals(damaged)).toBe(false);
    // Cut short, as a full disk would leave it (the rename makes that unlikely, not impossible).
    writeFileSync(file, good.subarray(0, 20));
    expect(await ask('three')).toBe('answer to three\n');
    expect(readFileSync(file).length).toBeGreaterThan(100_000);
  });

  it('a cache of an earlier bundle or Node is removed when the new one is written', async () => {
    mkdirSync(cacheDir(), { recursive: true });
    writeFileSync(path.join(cacheDir(), 'headless-v0.0.0-x64-1-1.v8'), 'old');
    writeFileSync(path.join(cacheDir(), 'unrelated.txt'), 'kept');
    await ask('one');
    expect(cacheFiles().sort()).toEqual([expect.stringMatching(new RegExp(`^headless-${process.version}-`)), 'unrelated.txt']);
  });

  it('NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node’s own', async () => {
    expect(await ask('one', { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('answer to one\n');
    expect(cacheFiles()).toEqual([]);
  });

  it('a home that cannot be written costs the cache, not the run', async () => {
    mkdirSync(t.home, { recursive: true });
    writeFileSync(cacheDir(), 'a file where the cache folder would be');
    expect(await ask('one')).toBe('answer to one\n');
  });
});
