import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalGate } from '../../../src/core/permissions/approvals.js';
import { PermissionRules, applyRules } from '../../../src/core/permissions/rule-match.js';
import { decide } from '../../../src/core/permissions/policy.js';
import { parseRule, ruleProblem } from '../../../src/core/permissions/rules.js';
import type { PermissionMode, PermissionRequest } from '../../../src/core/permissions/types.js';
import { makeWorkspace, resolveWorkspacePath } from '../../../src/core/platform/paths.js';
import type { ToolKind, Workspace } from '../../../src/core/tools/define.js';

let tmp: string;
let root: string;
let home: string;
let workspace: Workspace;

beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'outrider-rules-'));
  root = path.join(tmp, 'project');
  home = path.join(tmp, 'home');
  mkdirSync(path.join(root, 'secrets'), { recursive: true });
  mkdirSync(path.join(root, 'src', 'deep'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(root, 'secrets', 'key.pem'), 'KEY');
  // A link whose name looks harmless but whose target is a secret.
  symlinkSync(path.join(root, 'secrets', 'key.pem'), path.join(root, 'src', 'innocent.txt'));
  workspace = makeWorkspace(root);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const rules = (lists: { allow?: string[]; ask?: string[]; deny?: string[] }) =>
  new PermissionRules(lists, { roots: [root, workspace.root], home });

const KINDS: Record<string, ToolKind> = {
  read_file: 'read-only',
  grep: 'read-only',
  glob: 'read-only',
  list_dir: 'read-only',
  write_file: 'mutating',
  edit_file: 'mutating',
  bash: 'mutating',
  web_fetch: 'network',
  agent_start: 'agent',
};

function call(toolName: string, args: Record<string, unknown> = {}): PermissionRequest {
  const file = typeof args.path === 'string' ? [args.path] : [];
  return {
    toolName,
    kind: KINDS[toolName] ?? 'mutating',
    args,
    paths: file.map((p) => resolveWorkspacePath(workspace, p)),
  };
}

const bash = (command: string) => call('bash', { command });
const judge = (mode: PermissionMode, lists: Parameters<typeof rules>[0], request: PermissionRequest) =>
  applyRules(decide(mode, request), request, rules(lists)).decision;

describe("parseRule: Claude Code's grammar", () => {
  it.each([
    ['Bash', { tool: 'Bash' }],
    ['Bash(npm run test:*)', { tool: 'Bash', specifier: 'npm run test:*' }],
    ['  Read(./secrets/**)  ', { tool: 'Read', specifier: './secrets/**' }],
    ['Bash(echo (nested) parens)', { tool: 'Bash', specifier: 'echo (nested) parens' }],
    ['Bash(*)', { tool: 'Bash' }],
    ['mcp__github__*', { tool: 'mcp__github__*' }],
    ['WebFetch(domain:example.com)', { tool: 'WebFetch', specifier: 'domain:example.com' }],
  ])('%s', (text, expected) => {
    expect(parseRule(text)).toMatchObject(expected);
  });

  it.each([
    ['', /an empty rule/],
    ['Bash(', /does not end with "\)"/],
    ['Bash()', /nothing between the parentheses/],
    ['(ls)', /does not start with a tool name/],
    ['Bash)', /without "\("/],
    ['rm -rf /', /is not a tool name/],
    ['Bash(ls\n)', /control characters/],
    ['Ba sh(ls)', /does not start with a tool name/],
  ])('refuses %j', (text, problem) => {
    expect(ruleProblem(text)).toMatch(problem);
  });
});

describe('deny rules win over every mode, yolo included', () => {
  const deny = { deny: ['Read(./secrets/**)'] };
  it.each([
    ['read_file of the secret', () => call('read_file', { path: 'secrets/key.pem' })],
    ['read_file by an absolute path', () => call('read_file', { path: path.join(root, 'secrets/key.pem') })],
    ['read_file with .. in the path', () => call('read_file', { path: 'src/../secrets/key.pem' })],
    ['read_file through a symlink named otherwise', () => call('read_file', { path: 'src/innocent.txt' })],
    ['grep inside the folder', () => call('grep', { path: 'secrets', pattern: 'x' })],
    ['list_dir of the folder itself', () => call('list_dir', { path: 'secrets' })],
    ['bash cat of the secret (best effort)', () => bash('cat secrets/key.pem')],
    ['bash with the path after a redirect', () => bash('wc -c < secrets/key.pem')],
  ])('%s', (_name, request) => {
    for (const mode of ['default', 'accept-edits', 'plan', 'yolo'] as const)
      expect(judge(mode, deny, request()), mode).toBe('deny');
  });

  it('leaves other files alone', () => {
    expect(judge('default', deny, call('read_file', { path: 'src/a.ts' }))).toBe('allow');
    expect(judge('default', deny, call('read_file', { path: 'not-secrets/key.pem' }))).toBe('allow');
  });

  it('a pattern without a slash matches at any depth; //, ~/ and / anchor where Claude Code anchors them', () => {
    expect(judge('default', { deny: ['Read(*.pem)'] }, call('read_file', { path: 'secrets/key.pem' }))).toBe('deny');
    expect(judge('default', { deny: ['Read(.env)'] }, call('read_file', { path: 'src/deep/.env' }))).toBe('deny');
    expect(judge('default', { deny: ['Read(/secrets/**)'] }, call('read_file', { path: 'secrets/key.pem' }))).toBe('deny');
    expect(judge('default', { deny: ['Read(/src)'] }, call('read_file', { path: 'secrets/src' }))).toBe('allow');
    expect(judge('default', { deny: ['Read(~/.ssh/**)'] }, call('read_file', { path: path.join(home, '.ssh/id_rsa') }))).toBe(
      'deny',
    );
    expect(
      judge('default', { deny: ['Read(/etc/passwd)'] }, call('read_file', { path: '/etc/passwd' })),
      'project-relative',
    ).toBe('allow');
    expect(judge('default', { deny: ['Read(//etc/passwd)'] }, call('read_file', { path: '/etc/passwd' }))).toBe('deny');
  });

  it('Bash deny rules see past operators, substitutions, wrappers and paths to the program', () => {
    const denyRm = { deny: ['Bash(rm:*)'] };
    for (const command of [
      'rm -rf build',
      'echo hi && rm -rf build',
      'echo hi; rm -rf build',
      'ls | rm -rf build',
      'echo $(rm -rf build)',
      'echo `rm -rf build`',
      'sudo rm -rf build',
      'FOO=1 rm x',
      '/bin/rm x',
      'rm',
      'bash -c "rm -rf x"',
      "/bin/sh -c 'echo; rm x'",
      'timeout 5 rm x',
      'eval rm x',
      'xargs rm < list',
    ]) {
      expect(judge('yolo', denyRm, bash(command)), command).toBe('deny');
    }
    expect(judge('yolo', denyRm, bash('rmdir x')), 'rmdir is another program').toBe('allow');
    expect(judge('yolo', denyRm, bash('echo rm')), 'rm as an argument').toBe('allow');
  });

  it('a hook cannot allow what a deny rule refuses', async () => {
    const gate = new ApprovalGate({ mode: 'yolo', headless: true, rules: rules({ deny: ['Bash(curl:*)'] }) });
    const result = await gate.check(
      { ...bash('curl https://x.test'), label: 'curl', hook: { decision: 'allow', reason: 'ok' } },
      new AbortController().signal,
    );
    expect(result).toEqual({ allowed: false, message: 'bash: denied by the permission rule "Bash(curl:*)"' });
  });

  it('WebFetch(domain:…) matches the host, and an unreadable URL is denied rather than let through', () => {
    const denyHost = { deny: ['WebFetch(domain:evil.test)'] };
    expect(judge('yolo', denyHost, call('web_fetch', { url: 'https://evil.test/x' }))).toBe('deny');
    expect(judge('yolo', denyHost, call('web_fetch', { url: 'https://EVIL.test./x' }))).toBe('deny');
    expect(judge('yolo', denyHost, call('web_fetch', { url: 'https://notevil.test/x' }))).toBe('allow');
    expect(judge('yolo', denyHost, call('web_fetch', { url: 'not a url' }))).toBe('deny');
    expect(judge('yolo', { deny: ['WebFetch(domain:*.evil.test)'] }, call('web_fetch', { url: 'https://a.b.evil.test/' }))).toBe(
      'deny',
    );
  });

  it('mcp__server denies every tool of that server and no other', () => {
    const denyServer = { deny: ['mcp__github'] };
    expect(judge('yolo', denyServer, call('mcp__github__create_issue'))).toBe('deny');
    expect(judge('yolo', denyServer, call('mcp__githubx__create_issue'))).toBe('allow');
    expect(judge('yolo', { deny: ['mcp__github__*'] }, call('mcp__github__create_issue'))).toBe('deny');
    expect(judge('yolo', { deny: ['mcp__github__create_issue'] }, call('mcp__github__list'))).toBe('allow');
  });

  it('Task(name) denies starting that agent', () => {
    expect(judge('default', { deny: ['Task(reviewer)'] }, call('agent_start', { task: 't', agent: 'reviewer' }))).toBe('deny');
    expect(judge('default', { deny: ['Task(reviewer)'] }, call('agent_start', { task: 't', agent: 'explore' }))).toBe('allow');
  });
});

describe('allow rules answer an ordinary ask, no more', () => {
  it('Bash(touch:*) allows touch and nothing chained to it', () => {
    const allow = { allow: ['Bash(touch:*)'] };
    expect(judge('default', allow, bash('touch x'))).toBe('allow');
    expect(judge('default', allow, bash('touch'))).toBe('allow');
    expect(judge('default', allow, bash('touch x && git status'))).toBe('allow');
    for (const command of [
      'touch x && rm -rf ~',
      'touch x; rm -rf ~',
      'touch $(rm -rf ~)',
      'touch `rm -rf ~`',
      'touchy x',
      'touch x > /etc/passwd',
      'touch x\nrm -rf ~',
    ]) {
      expect(judge('default', allow, bash(command)), command).toBe('ask');
    }
  });

  it('Bash(npm run test:*) is a prefix at a word boundary; an exact rule is the command alone', () => {
    const allow = { allow: ['Bash(npm run test:*)', 'Bash(make build)'] };
    expect(judge('default', allow, bash('npm run test'))).toBe('allow');
    expect(judge('default', allow, bash('npm  run test -- --watch'))).toBe('allow');
    expect(judge('default', allow, bash('npm run testing'))).toBe('ask');
    expect(judge('default', allow, bash('make build'))).toBe('allow');
    expect(judge('default', allow, bash('make build-all'))).toBe('ask');
  });

  it('Edit(src/**) allows edits in src by name and by real path, and not through a link out of it', () => {
    const allow = { allow: ['Edit(src/**)'] };
    expect(judge('default', allow, call('edit_file', { path: 'src/deep/a.ts' }))).toBe('allow');
    expect(judge('default', allow, call('write_file', { path: 'src/b.ts' }))).toBe('allow');
    expect(judge('default', allow, call('write_file', { path: 'lib/b.ts' }))).toBe('ask');
    // src/innocent.txt is really secrets/key.pem.
    expect(judge('default', allow, call('write_file', { path: 'src/innocent.txt' }))).toBe('ask');
  });

  it('does not lift what the policy denies or always asks', () => {
    const allow = { allow: ['Bash', 'Edit', 'Write'] };
    expect(judge('plan', allow, bash('touch x'))).toBe('deny');
    expect(judge('default', allow, call('write_file', { path: '../outside.txt' }))).toBe('deny');
    expect(judge('default', allow, call('write_file', { path: '.git/config' }))).toBe('ask');
  });

  it('an allow rule with a specifier outrider cannot read is left out, with a warning', () => {
    const made = rules({ allow: ['TodoWrite(x)', 'WebFetch(https://x.test)', 'WebSearch'] });
    expect(made.warnings.join('\n')).toMatch(/TodoWrite\(x\).*left out/);
    expect(made.warnings.join('\n')).toMatch(/WebFetch\(https:\/\/x.test\).*left out/);
    expect(made.warnings.join('\n')).toMatch(/"WebSearch" does nothing: outrider has no WebSearch tool/);
    expect(made.allowed(call('web_fetch', { url: 'https://x.test' }))).toBeUndefined();
  });

  it('a deny rule with a specifier outrider cannot read is read wider, never dropped', () => {
    const made = rules({ deny: ['WebFetch(https://x.test)'] });
    expect(made.warnings[0]).toMatch(/applies to every fetch/);
    expect(made.denied(call('web_fetch', { url: 'https://other.test' }))).toBe('WebFetch(https://x.test)');
  });
});

describe('ask rules', () => {
  it('ask every time, even in yolo, and a remembered "allow always" does not cover them', async () => {
    expect(judge('yolo', { ask: ['Bash(git push:*)'] }, bash('git push origin main'))).toBe('ask');
    expect(judge('yolo', { ask: ['Bash(git push:*)'] }, bash('git status'))).toBe('allow');
    const asked: string[] = [];
    const gate = new ApprovalGate({
      mode: 'default',
      headless: false,
      approver: async (request) => {
        asked.push(request.reason);
        return 'allow-always';
      },
      rules: rules({ ask: ['Read(./secrets/**)'] }),
    });
    const request = { ...call('read_file', { path: 'secrets/key.pem' }), label: 'key' };
    await gate.check(request, new AbortController().signal);
    await gate.check(request, new AbortController().signal);
    expect(asked).toHaveLength(2);
    expect(asked[0]).toContain('the permission rule "Read(./secrets/**)" asks every time');
  });
});

describe('rule patterns: gitignore-like paths, and no pattern that backtracks for ever', () => {
  it('* stays in one folder, ** crosses folders, ? and [..] match one character', () => {
    const denies = (rule: string, file: string) =>
      judge('default', { deny: [rule] }, call('read_file', { path: file })) === 'deny';
    expect(denies('Read(src/*.ts)', 'src/a.ts')).toBe(true);
    expect(denies('Read(src/*.ts)', 'src/deep/a.ts')).toBe(false);
    expect(denies('Read(src/**/*.ts)', 'src/a.ts')).toBe(true);
    expect(denies('Read(src/**/*.ts)', 'src/deep/a.ts')).toBe(true);
    expect(denies('Read(src/?.ts)', 'src/a.ts')).toBe(true);
    expect(denies('Read(src/[ab].ts)', 'src/b.ts')).toBe(true);
    expect(denies('Read(src/[!ab].ts)', 'src/b.ts')).toBe(false);
    expect(denies('Read(.env*)', 'src/deep/.env.local')).toBe(true);
  });

  it("a repository's hostile patterns (its deny rules apply untrusted) are matched in linear-ish time", () => {
    // Each of these backtracks for minutes as a regular expression or through picomatch.
    const stars = '*a'.repeat(12) + '*b';
    expect(judge('yolo', { deny: [`Bash(${stars})`] }, bash(`echo ${'a'.repeat(5000)}`))).toBe('allow');
    expect(judge('yolo', { deny: [`mcp__${stars}`] }, call(`mcp__${'a'.repeat(59)}`))).toBe('allow');
    const deep = `Read(${'**/'.repeat(20)}${stars})`;
    expect(judge('default', { deny: [deep] }, call('read_file', { path: `${'a/'.repeat(100)}${'a'.repeat(200)}` }))).toBe(
      'allow',
    );
    expect(judge('yolo', { deny: [`Bash(${stars}:*)`] }, bash(`${'a'.repeat(3000)} x`))).toBe('allow');
  });
});
