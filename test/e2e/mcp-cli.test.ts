import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { outriderPaths } from '../../src/core/config/paths.js';
import { OAuthStore } from '../../src/core/mcp/oauth-store.js';
import { useMockProject } from '../support/e2e-project.js';
import { type HttpMcpServer, MCP_BIN, startHttpServer } from '../support/mcp-servers.js';
import { type OAuthMcpServer, approve, startOAuthMcpServer } from '../support/oauth-mcp-server.js';
import { type LiveCli, runCli, startCli } from '../support/run-cli.js';
import { useTui } from '../support/tmux.js';
import { expectExited, pidWrittenTo } from '../support/process.js';
import { until } from '../support/until.js';

/** `outrider mcp list|login|logout` through the built binary, against real MCP servers. Needs `npm run build`. */
const t = useMockProject();
const tui = useTui();

const running: Array<{ close(): Promise<void> }> = [];
const live: LiveCli[] = [];
afterEach(async () => {
  for (const cli of live.splice(0)) cli.signal('SIGKILL');
  await Promise.all(running.splice(0).map((s) => s.close()));
});

const run = (args: string[]) => runCli(['mcp', ...args], { cwd: t.project, env: t.env, timeoutMs: 60_000 });

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

const userSettings = (value: unknown) => writeJson(path.join(t.home, 'settings.json'), value);

async function oauthServer(): Promise<OAuthMcpServer> {
  const server = await startOAuthMcpServer();
  running.push(server);
  return server;
}

/** `mcp login <name>` left running: the authorization URL it printed, once it has. */
async function startLogin(name: string): Promise<{ cli: LiveCli; url: string }> {
  const cli = startCli(['mcp', 'login', name], { cwd: t.project, env: t.env });
  live.push(cli);
  const url = await until(() => /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(cli.stderr())?.[1], {
    what: 'the authorization URL on stderr',
    observe: () => cli.stderr(),
    timeoutMs: 30_000,
  });
  return { cli, url };
}

const tokenFile = (url: string) => new OAuthStore(outriderPaths(t.env).mcpAuthDir).fileFor(new URL(url));

describe('outrider mcp list', () => {
  it("lists every source's servers with their state; an untrusted project's .mcp.json server is shown, not started", async () => {
    writeJson(path.join(t.home, '.claude.json'), { mcpServers: { everything: { command: MCP_BIN.everything } } });
    userSettings({
      mcpServers: {
        broken: { command: 'no-such-mcp-program-xyz', env: { BROKEN_TOKEN: 'env-secret-1' } },
        remote: { type: 'http', url: 'http://127.0.0.1:9/mcp?key=query-secret-2', headers: { 'X-Api-Key': 'header-secret-3' } },
      },
    });
    const marker = path.join(t.project, 'project-server-ran');
    writeJson(path.join(t.project, '.mcp.json'), {
      mcpServers: {
        project: { command: 'sh', args: ['-c', `touch ${marker}`], env: { PROJECT_SECRET: 'env-secret-4' } },
        'evil\u001b]0;pwned\u0007': { command: 'true' },
      },
    });
    const result = await run(['list']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([`everything: ${MCP_BIN.everything} (stdio, ~/.claude.json)`, '  ready: 13 tools']);
    expect(lines[2]).toBe('broken: no-such-mcp-program-xyz (stdio, settings; env: BROKEN_TOKEN)');
    expect(lines[3]).toMatch(/^ {2}failed: cannot run "no-such-mcp-program-xyz"/);
    expect(lines.slice(4, 6)).toEqual([
      'remote: http://127.0.0.1:9/mcp?key=*** (http, settings; headers: X-Api-Key)',
      expect.stringMatching(/^ {2}failed: /),
    ]);
    const untrusted = '  not started: folder not trusted (run outrider here and answer the trust question, or pass --trust)';
    expect(lines.slice(6)).toEqual([
      `project: sh -c touch ${marker} (stdio, .mcp.json; env: PROJECT_SECRET)`,
      untrusted,
      'evil\\u{1b}]0;pwned\\u{7}: true (stdio, .mcp.json)',
      untrusted,
      '',
    ]);
    expect(existsSync(marker)).toBe(false);
    for (const secret of ['env-secret-1', 'query-secret-2', 'header-secret-3', 'env-secret-4'])
      expect(result.stdout).not.toContain(secret);
    expect(result.stdout).not.toContain('\u001b');

    // --trust starts them, as it does for a session: the project's server ran (and, exiting at once, failed).
    const trusted = await run(['list', '--trust']);
    expect(trusted.code).toBe(0);
    expect(trusted.stdout).toContain(`project: sh -c touch ${marker} (stdio, .mcp.json; env: PROJECT_SECRET)\n  failed: `);
    expect(trusted.stdout).not.toContain('not started');
    expect(existsSync(marker)).toBe(true);
  });

  it('Ctrl+C while a server hangs at its start: exit 130, the server ended', async () => {
    const pidFile = path.join(t.project, 'hung.pid');
    userSettings({ mcpServers: { hung: { command: 'sh', args: ['-c', `echo $$ > ${pidFile}; exec sleep 600`] } } });
    const cli = startCli(['mcp', 'list'], { cwd: t.project, env: t.env });
    live.push(cli);
    const pid = await pidWrittenTo(pidFile, () => {});
    cli.signal('SIGINT');
    expect(await cli.exited()).toEqual({ code: 130, signal: null });
    expect(cli.stdout()).toBe('');
    expect(cli.stderr()).toBe('outrider: cancelled\n');
    await expectExited(pid);
  });

  it('says there are none, and where to add them', async () => {
    const result = await run(['list']);
    expect(result).toEqual({
      code: 0,
      stdout: 'No MCP servers here: add them to .mcp.json, to mcpServers in your settings, or pass --mcp-config.\n',
      stderr: '',
    });
  });
});

describe('outrider mcp add / get / remove', () => {
  it('a server added (its own flags after --) is one a session here starts; get shows it, remove takes it away', async () => {
    const added = await run(['add', '-e', 'EVERY_TOKEN=env-secret-5', 'every', '--', MCP_BIN.everything, 'stdio']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^added MCP server "every" \(stdio\) to the local scope: /);

    const listed = await run(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').slice(0, 2)).toEqual([
      `every: ${MCP_BIN.everything} stdio (stdio, ~/.claude.json; env: EVERY_TOKEN)`,
      '  ready: 13 tools',
    ]);

    const got = await run(['get', 'every']);
    expect(got.code).toBe(0);
    expect(got.stdout).toContain(`  command: ${MCP_BIN.everything} stdio\n  env: EVERY_TOKEN=***\n`);
    expect(got.stdout).not.toContain('env-secret-5');

    const bad = await run(['add', '../x', '--', 'true']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"../x" is not a server name');

    expect((await run(['remove', 'every'])).code).toBe(0);
    expect((await run(['list'])).stdout).toMatch(/^No MCP servers here/);
  });
});

describe('outrider mcp login / logout', () => {
  it('signs in through the printed URL; list shows it ready; logout forgets it and list shows needs-auth again', async () => {
    const server = await oauthServer();
    userSettings({ mcpServers: { linear: { type: 'http', url: server.url } } });
    const needsAuth = `linear: ${server.url} (http, settings)\n  needs-auth: sign in with outrider mcp login linear\n`;
    expect(await run(['list'])).toEqual({ code: 0, stdout: needsAuth, stderr: '' });

    const { cli, url } = await startLogin('linear');
    expect(cli.stderr()).toContain('sign in to "linear": open this page in a browser (waiting up to 5m00s; Ctrl+C cancels):');
    const answer = await approve(url);
    expect(answer.status).toBe(200);
    expect(await cli.exited(30_000)).toEqual({ code: 0, signal: null });
    expect(cli.stdout()).toBe('signed in to "linear": 1 tool\n');
    expect(statSync(tokenFile(server.url)).mode & 0o777).toBe(0o600);
    expect(server.counts).toMatchObject({ registrations: 1, authorizationCode: 1 });

    const ready = await run(['list']);
    expect(ready).toEqual({ code: 0, stdout: `linear: ${server.url} (http, settings)\n  ready: 1 tool\n`, stderr: '' });

    const out = await run(['logout', 'linear']);
    expect(out).toEqual({ code: 0, stdout: 'signed out of "linear": its stored sign-in is forgotten\n', stderr: '' });
    expect(existsSync(tokenFile(server.url))).toBe(false);
    expect((await run(['logout', 'linear'])).stdout).toBe('"linear" had no stored sign-in\n');
    expect(await run(['list'])).toEqual({ code: 0, stdout: needsAuth, stderr: '' });
    for (const token of server.issued()) expect(cli.stdout() + cli.stderr() + ready.stdout).not.toContain(token);
  });

  it('Ctrl+C cancels the wait for the browser: exit 130, the local callback closed', async () => {
    const server = await oauthServer();
    userSettings({ mcpServers: { linear: { type: 'http', url: server.url } } });
    const { cli, url } = await startLogin('linear');
    const callback = new URL(new URL(url).searchParams.get('redirect_uri')!);
    // The callback listens while the sign-in waits.
    expect((await fetch(new URL('/elsewhere', callback))).status).toBe(404);
    cli.signal('SIGINT');
    expect(await cli.exited()).toEqual({ code: 130, signal: null });
    expect(cli.stderr()).toContain('outrider: sign-in to "linear" cancelled\n');
    await expect(fetch(callback)).rejects.toThrow();
    // The registration is kept for the next sign-in; no tokens, and no PKCE verifier left behind.
    expect(Object.keys(JSON.parse(readFileSync(tokenFile(server.url), 'utf8')) as object)).toEqual(['serverUrl', 'client']);
  });

  it('a corrupt token file is needs-auth, and a sign-in replaces it', async () => {
    const server = await oauthServer();
    userSettings({ mcpServers: { linear: { type: 'http', url: server.url } } });
    mkdirSync(path.dirname(tokenFile(server.url)), { recursive: true });
    writeFileSync(tokenFile(server.url), '{"serverUrl": 42, "tokens": [\u0000 not json');
    expect((await run(['list'])).stdout).toContain('  needs-auth: sign in with outrider mcp login linear\n');

    const { cli, url } = await startLogin('linear');
    await approve(url);
    expect(await cli.exited(30_000)).toEqual({ code: 0, signal: null });
    expect(JSON.parse(readFileSync(tokenFile(server.url), 'utf8'))).toMatchObject({ serverUrl: server.url, tokens: {} });
    expect((await run(['list'])).stdout).toContain('  ready: 1 tool\n');
  });

  it('a FIFO where the token file goes fails that server with the reason, without hanging', async () => {
    const server = await oauthServer();
    userSettings({ mcpServers: { linear: { type: 'http', url: server.url } } });
    mkdirSync(path.dirname(tokenFile(server.url)), { recursive: true });
    execFileSync('mkfifo', [tokenFile(server.url)]);
    const result = await run(['list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {2}failed: .*not a regular file/);
    expect(await run(['logout', 'linear'])).toMatchObject({
      code: 0,
      stdout: 'signed out of "linear": its stored sign-in is forgotten\n',
    });
    expect(existsSync(tokenFile(server.url))).toBe(false);
  });

  it('refuses what cannot be signed in to, each with what to do instead', async () => {
    const server = await oauthServer();
    const plain: HttpMcpServer = await startHttpServer('streamableHttp');
    running.push(plain);
    userSettings({
      mcpServers: {
        linear: { type: 'http', url: server.url },
        local: { command: MCP_BIN.everything },
        open: { type: 'http', url: `${plain.url}/mcp` },
        keyed: { type: 'http', url: server.url, headers: { authorization: 'Bearer mine' } },
        unset: { type: 'http', url: '${MCP_CLI_UNSET_URL}' },
        gone: { type: 'http', url: 'http://127.0.0.1:9/mcp' },
      },
    });
    writeJson(path.join(t.project, '.mcp.json'), { mcpServers: { repo: { type: 'http', url: server.url } } });
    const refusals: Array<[string, string]> = [
      [
        'nope',
        'no MCP server is named "nope" here (there are: "linear", "local", "open", "keyed", "unset", "gone"); outrider mcp list shows them',
      ],
      [
        'lin\u001b[2Jear\u0007',
        'no MCP server is named "lin\\u001b[2Jear\\u0007" here (there are: "linear", "local", "open", "keyed", "unset", "gone"); outrider mcp list shows them',
      ],
      [
        'local',
        'MCP server "local" is a local program (stdio): OAuth sign-in is for remote (http, sse) servers; what a local one needs goes in its "env"',
      ],
      [
        'keyed',
        'MCP server "keyed" sets its own Authorization header: it needs no sign-in (remove the header to sign in with OAuth instead)',
      ],
      ['unset', 'MCP server "unset": it uses ${MCP_CLI_UNSET_URL}, which is not set; set it, or write ${NAME:-default}'],
      [
        'repo',
        'MCP server "repo" of .mcp.json is not used here: folder not trusted (run outrider here and answer the trust question, or pass --trust)',
      ],
      ['open', 'MCP server "open" needs no sign-in: it answered without one (ready: 13 tools)'],
    ];
    for (const [name, message] of refusals) {
      expect(await run(['login', name]), name).toEqual({ code: 1, stdout: '', stderr: `outrider: ${message}\n` });
    }
    expect(await run(['login', 'gone'])).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^outrider: cannot sign in to "gone": it failed: \S.*\n$/),
    });
    expect(await run(['logout', 'local'])).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('is a local program (stdio): OAuth sign-out'),
    });
    expect(server.counts).toEqual({ registrations: 0, authorizationCode: 0, refreshToken: 0 });
    expect((await run(['login'])).code).toBe(2);
    expect((await run(['add', 'x'])).code).toBe(2);
  });
});

describe('outrider mcp login in a terminal', () => {
  it('gives the terminal back while it waits for the browser: Ctrl+C cancels it (exit 130)', async () => {
    const server = await oauthServer();
    const pane = tui.launch({
      args: ['mcp', 'login', 'linear'],
      settings: { mcpServers: { linear: { type: 'http', url: server.url } } },
    });
    await pane.screen(/\/authorize\?/);
    expect(pane.raw()).toBe(false);
    pane.key('C-c');
    const screen = await pane.screen(/\[exit status \d+\]/);
    expect(screen).toContain('outrider: sign-in to "linear" cancelled');
    expect(screen).toContain('[exit status 130]');
  });
});
