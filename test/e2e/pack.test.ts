import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type MockProvider, startMockProvider } from '../support/mock-provider.js';
import { REPO, TEST_KEY } from '../support/run-cli.js';

let mock: MockProvider;
let tarball: string;
let work: string;

beforeAll(async () => {
  mock = await startMockProvider();
  work = mkdtempSync(path.join(os.tmpdir(), 'outrider-pack-'));
  // --ignore-scripts: the test suite's global setup already built dist/.
  const out = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
    cwd: REPO,
    encoding: 'utf8',
  });
  tarball = path.join(work, out.trim().split('\n').at(-1)!);
}, 60_000);
afterAll(() => mock.close());

describe('the published package', () => {
  it('ships only the launcher, the bundles and the README', () => {
    const listing = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(listing).toContain('package/bin/outrider.js');
    expect(listing).toContain('package/bin/code-cache.js');
    expect(listing).toContain('package/dist/cli.js');
    // The headless CommonJS bundle, which Node before 22.1 runs -p with (bin/code-cache.js).
    expect(listing).toContain('package/dist/headless.cjs');
    expect(listing.every((f) => /^package\/(bin\/|dist\/[^/]+\.c?js$|README\.md$|package\.json$|LICENSE)/.test(f))).toBe(true);
  });

  it('runs with npx from an empty folder: --version, then a headless prompt', async () => {
    // As a user would: a folder holding nothing but the tarball.
    const empty = path.join(work, 'empty');
    mkdirSync(empty);
    copyFileSync(tarball, path.join(empty, path.basename(tarball)));
    const spec = `./${path.basename(tarball)}`;
    const env = { ...process.env, npm_config_yes: 'true', npm_config_update_notifier: 'false' };
    const version = execFileSync('npx', ['--yes', spec, '--version'], { cwd: empty, env, encoding: 'utf8' });
    expect(version.trim()).toBe('0.1.0');
    mock.script({ text: 'packed and working' });
    // Asynchronously: the mock provider lives in this process and must keep answering.
    const { stdout: answer } = await promisify(execFile)('npx', ['--yes', spec, '-p', 'hello'], {
      cwd: empty,
      env: {
        ...env,
        OUTRIDER_HOME: path.join(work, 'home'),
        ANTHROPIC_API_KEY: TEST_KEY,
        ANTHROPIC_BASE_URL: mock.anthropicBaseURL,
      },
      encoding: 'utf8',
    });
    expect(answer).toBe('packed and working\n');
    expect(readdirSync(empty)).toEqual([path.basename(tarball)]);
  }, 120_000);
});
