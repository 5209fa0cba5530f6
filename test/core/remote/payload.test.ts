import { describe, expect, it } from 'vitest';
import { builtinDefinitions } from '../../../src/core/agents/builtin-agents.js';
import { buildPayload, publicGitUrl, secretValues } from '../../../src/core/remote/build-payload.js';
import { grantFor } from '../../../src/core/remote/ceiling.js';
import { PAYLOAD_VERSION, parsePayload } from '../../../src/core/remote/payload.js';
import { PayloadRefused } from '../../../src/core/remote/remote-errors.js';
import { secretForms } from '../../../src/core/platform/secret-forms.js';

const general = builtinDefinitions().find((d) => d.name === 'general')!;
const commit = 'a'.repeat(40);

function payload(over: Partial<Parameters<typeof buildPayload>[0]> = {}) {
  return buildPayload({
    remoteId: 's1.sub-1.abcd',
    sessionId: 's1',
    request: { id: 'sub-1', task: 'write hello.txt', mode: 'typed' },
    definition: general,
    workspace: { remote: 'file:///srv/repo.git', commit, ref: 'refs/outrider/s1/sub-1' },
    ...over,
  });
}

describe('the remote job payload', () => {
  it('carries the job, its whole definition, its caps and where the code is', () => {
    const built = payload({ caps: { maxTokens: 5000 }, labels: ['gpu'], permissionMode: 'accept-edits' });
    expect(built).toMatchObject({
      version: PAYLOAD_VERSION,
      jobId: 'sub-1',
      sessionId: 's1',
      task: 'write hello.txt',
      mode: 'typed',
      definition: { name: 'general', systemPrompt: general.systemPrompt, disallowedTools: [] },
      caps: { maxTokens: 5000 },
      workspace: { remote: 'file:///srv/repo.git', commit, ref: 'refs/outrider/s1/sub-1' },
      labels: ['gpu'],
      permissionMode: 'accept-edits',
    });
    // What a worker reads back is what was sent.
    expect(parsePayload(JSON.parse(JSON.stringify(built)))).toEqual(built);
  });

  it("a definition's limits become caps the job's own caps override", () => {
    const built = payload({ definition: { ...general, maxTurns: 7, maxDurationMs: 1000 }, caps: { maxTurns: 3 } });
    expect(built.caps).toEqual({ maxTurns: 3, maxDurationMs: 1000 });
  });

  it('refuses an unknown version, a missing one, and names the field that is wrong', () => {
    const good = JSON.parse(JSON.stringify(payload()));
    expect(() => parsePayload({ ...good, version: 2 })).toThrow(PayloadRefused);
    expect(() => parsePayload({ ...good, version: 2 })).toThrow(
      /payload version 2 is not one this worker reads \(it reads version 1\)/,
    );
    expect(() => parsePayload({ ...good, version: undefined })).toThrow(/has no version/);
    expect(() => parsePayload('nonsense')).toThrow(/no payload object/);
    expect(() => parsePayload({ ...good, task: '' })).toThrow(/invalid payload: task: a non-empty task/);
    expect(() => parsePayload({ ...good, workspace: { ...good.workspace, commit: 'HEAD' } })).toThrow(
      /workspace\.commit: a full commit id/,
    );
    expect(() => parsePayload({ ...good, permissionMode: 'root' })).toThrow(/permissionMode/);
    expect(() => parsePayload({ ...good, workspace: { ...good.workspace, remote: 'ext::sh -c touch% /tmp/pwned' } })).toThrow(
      /no transport helpers/,
    );
  });

  it('carries no key and no secret from an environment full of them', () => {
    const env = {
      ANTHROPIC_API_KEY: 'sk-ant-api03-THE-ANTHROPIC-KEY-0123456789',
      OPENAI_API_KEY: 'sk-proj-THE-OPENAI-KEY-abcdefghijklmnop',
      ANTHROPIC_AUTH_TOKEN: 'auth-token-value-777777',
      GITHUB_TOKEN: 'ghp_THEGITHUBTOKENVALUE123456',
      AWS_SECRET_ACCESS_KEY: 'aws/secret+access/key=value',
      DB_PASSWORD: 'correct-horse-battery-staple',
      PATH: '/usr/bin',
      HOME: '/home/someone',
    };
    const secrets = secretValues(env);
    expect(secrets).toHaveLength(6);
    // The model repeated a key in the task, the instructions carry one base64-encoded, the
    // git URL holds a token: none of it may reach the queue.
    const built = payload({
      request: {
        id: 'sub-1',
        task: `deploy with ${env.OPENAI_API_KEY} and ${env.DB_PASSWORD}`,
        instructions: `token: ${Buffer.from(env.GITHUB_TOKEN).toString('base64')}`,
        mode: 'typed',
      },
      workspace: { remote: `https://x-access-token:${env.GITHUB_TOKEN}@git.example.com/team/repo.git`, commit },
      secrets,
    });
    const wire = JSON.stringify(built);
    for (const value of Object.values(env).filter((v) => secrets.includes(v))) {
      for (const form of secretForms(value)) expect(wire).not.toContain(form);
    }
    expect(built.workspace.remote).toBe('https://git.example.com/team/repo.git');
    expect(built.task).toContain('[redacted]');
  });

  it('a git URL travels without credentials; ssh keeps its user name', () => {
    expect(publicGitUrl('https://user:pw@host/r.git')).toBe('https://host/r.git');
    expect(publicGitUrl('https://token@host/r.git')).toBe('https://host/r.git');
    expect(publicGitUrl('ssh://git@host/r.git')).toBe('ssh://git@host/r.git');
    expect(publicGitUrl('git@host:team/r.git')).toBe('git@host:team/r.git');
    expect(publicGitUrl('/srv/repo.git')).toBe('/srv/repo.git');
  });
});

describe("a worker's ceiling", () => {
  const ceiling = { permissionMode: 'accept-edits' as const, sandbox: 'workspace-write' as const, caps: { maxTurns: 5 } };

  it('a job may narrow the mode and sandbox, and gets the smaller caps', () => {
    expect(
      grantFor(payload({ permissionMode: 'plan', sandbox: 'read-only', caps: { maxTurns: 20, maxTokens: 9 } }), ceiling),
    ).toEqual({
      permissionMode: 'plan',
      sandbox: 'read-only',
      caps: { maxTurns: 5, maxTokens: 9 },
    });
    expect(grantFor(payload(), ceiling)).toMatchObject({ permissionMode: 'accept-edits', sandbox: 'workspace-write' });
  });

  it('a job asking for more than the ceiling is refused, not narrowed', () => {
    expect(() => grantFor(payload({ permissionMode: 'yolo' }), ceiling)).toThrow(
      /asks for permission mode yolo, and this worker allows at most accept-edits/,
    );
    expect(() => grantFor(payload({ sandbox: 'off' }), ceiling)).toThrow(
      /asks for sandbox off, and this worker allows at most workspace-write/,
    );
  });

  it('a worker with an allow-list of remotes refuses others', () => {
    expect(() => grantFor(payload(), { ...ceiling, remotes: ['file:///srv/other.git'] })).toThrow(
      /not one this worker fetches from/,
    );
    expect(grantFor(payload(), { ...ceiling, remotes: ['file:///srv/repo.git'] }).permissionMode).toBe('accept-edits');
  });
});
