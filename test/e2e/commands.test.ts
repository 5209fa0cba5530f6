import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useMockProject } from '../support/e2e-project.js';
import { runCli } from '../support/run-cli.js';

const t = useMockProject();

function write(file: string, text: string): void {
  const full = path.join(t.project, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, text);
}

const lastUserText = (index: number) => JSON.stringify(t.mock.requests[index]!.body.messages.at(-1).content);
const toolResult = (index: number) => JSON.stringify(t.mock.requests[index]!.body.messages.at(-1).content[0]);
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('custom commands and skills through the binary', () => {
  it("headless -p '/review src' sends the command's body with its arguments; init lists commands and skills", async () => {
    write(
      '.claude/commands/review.md',
      '---\ndescription: Review code\nargument-hint: [path]\n---\nReview $ARGUMENTS for bugs; start with $1.\n',
    );
    write('.claude/commands/frontend/component.md', 'Make a $1 component.');
    write('.claude/skills/pdf/SKILL.md', '---\nname: pdf\ndescription: Read PDF forms.\n---\nUse pdftotext.\n');
    t.mock.script({ text: 'reviewed' });
    const result = await runCli(['-p', '/review src', '--output-format', 'stream-json'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    expect(lastUserText(0)).toContain('Review src for bugs; start with src.');
    expect(lastUserText(0)).not.toContain('/review');
    const init = lines(result.stdout)[0]!;
    expect(init).toMatchObject({ subtype: 'init', slash_commands: ['frontend:component', 'review'], skills: ['pdf'] });
  });

  it('a namespaced command from the user folder (HOME/.claude/commands); an unknown /name is sent as typed', async () => {
    const home = path.join(t.home, 'user-home');
    mkdirSync(path.join(home, '.claude/commands/git'), { recursive: true });
    writeFileSync(path.join(home, '.claude/commands/git/log.md'), 'Summarize git log for $1.');
    t.mock.script({ text: 'one' }, { text: 'two' });
    const env = { ...t.env, HOME: home };
    expect((await runCli(['-p', '/git:log main'], { cwd: t.project, env })).code).toBe(0);
    expect(lastUserText(0)).toContain('Summarize git log for main.');
    expect((await runCli(['-p', '/tmp is full, why?'], { cwd: t.project, env })).code).toBe(0);
    expect(lastUserText(1)).toContain('/tmp is full, why?');
  });

  it("the model calls skill and gets the body and the skill folder's files", async () => {
    write(
      '.claude/skills/pdf/SKILL.md',
      '---\nname: pdf\ndescription: Read PDF forms.\n---\nRun scripts/extract.py on the file.\n',
    );
    write('.claude/skills/pdf/scripts/extract.py', 'print("text")');
    t.mock.script({ toolCalls: [{ name: 'skill', args: { name: 'pdf' } }] }, { text: 'done' });
    const result = await runCli(['-p', 'read form.pdf'], { cwd: t.project, env: t.env });
    expect(result.code).toBe(0);
    const skill = t.mock.requests[0]!.body.tools.find((tool: { name: string }) => tool.name === 'skill');
    expect(skill.description).toContain('- pdf: Read PDF forms.');
    expect(toolResult(1)).toContain('Run scripts/extract.py on the file.');
    expect(toolResult(1)).toContain('scripts/extract.py');
    expect(toolResult(1)).not.toContain('"is_error":true');
  });

  it("a project command's allowed-tools run bash without asking only with --trust", async () => {
    write('.claude/commands/touch.md', '---\nallowed-tools: Bash\n---\nCreate the marker file.');
    const call = { toolCalls: [{ name: 'bash', args: { command: 'echo made > marker.txt' } }] };
    t.mock.script(call, { text: 'denied' }, call, { text: 'made' });
    const untrusted = await runCli(['-p', '/touch'], { cwd: t.project, env: t.env });
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain("allowed-tools of the project's commands /touch are not applied");
    expect(toolResult(1)).toContain('needs approval');
    expect(existsSync(path.join(t.project, 'marker.txt'))).toBe(false);
    const trusted = await runCli(['-p', '/touch', '--trust'], { cwd: t.project, env: t.env });
    expect(trusted.code).toBe(0);
    expect(toolResult(3)).not.toContain('needs approval');
    expect(toolResult(3)).not.toContain('"is_error":true');
    expect(existsSync(path.join(t.project, 'marker.txt'))).toBe(true);
  });
});
