/**
 * A headless run never loads undici (Node's fetch): the SDKs get http-fetch.ts as their fetch,
 * and the build points their `Headers`/`FormData` names at lite-headers.ts. Checked on the
 * built binary against the mock provider, with a preload that lists the internal modules the
 * process loaded (test/support/undici-probe.mjs). Needs `npm run build`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { REPO, runCli } from '../support/run-cli.js';

const PROBE = path.join(REPO, 'test/support/undici-probe.mjs');
const t = useMockProject();

function probed(name: string): { env: Record<string, string>; loaded: () => string[] } {
  const file = path.join(t.project, '..', `${name}-undici.json`);
  return {
    env: { NODE_OPTIONS: `--import ${PROBE}`, UNDICI_PROBE_FILE: file },
    loaded: () => JSON.parse(readFileSync(file, 'utf8')) as string[],
  };
}

describe('a headless run loads no undici', () => {
  it('the probe sees undici when something touches the Headers global', () => {
    const probe = probed('sanity');
    execFileSync(process.execPath, ['-e', 'new Headers()'], { env: { ...process.env, ...probe.env } });
    expect(probe.loaded().length).toBeGreaterThan(0);
  });

  it.each(['anthropic', 'openai'] as const)('%s: a tool call, a retried 529 and a streamed answer', async (provider) => {
    writeFileSync(path.join(t.project, 'notes.txt'), 'alpha\n');
    t.mock.script(
      { toolCalls: [{ name: 'read_file', args: { path: 'notes.txt' } }] },
      { fault: { kind: 'status', status: 529, retryAfter: 0 } },
      { text: 'It says alpha.' },
    );
    const probe = probed(provider);
    const env =
      provider === 'anthropic'
        ? t.env
        : { OUTRIDER_HOME: t.home, OPENAI_API_KEY: 'sk-openai-e2e-0123456789', OPENAI_BASE_URL: t.mock.openaiBaseURL };
    const result = await runCli(['-p', 'what is in notes.txt?', '--provider', provider], {
      cwd: t.project,
      env: { ...env, ...probe.env },
    });
    expect(result.stderr).toBe('outrider: overloaded (529); calls to this provider pause for 0s\n');
    expect(result.stdout).toBe('It says alpha.\n');
    expect(result.code).toBe(0);
    expect(t.mock.requests).toHaveLength(3);
    expect(probe.loaded()).toEqual([]);
  });
});
