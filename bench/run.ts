// npm run bench: measures outrider against the test suite's mock provider and prints each
// figure beside its target. Figures are printed, never asserted.
import { spawnSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startMockProvider } from '../test/support/mock-provider.js';

const repo = path.resolve(import.meta.dirname, '..');
const bin = path.join(repo, 'bin/outrider.js');
const measure = path.join(repo, 'bench/measure.mjs');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timeCommand(args: string[], runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = process.hrtime.bigint();
    const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

function row(name: string, value: string, target: string, ok: boolean): void {
  console.log(`${ok ? 'ok  ' : 'MISS'}  ${name.padEnd(44)} ${value.padStart(12)}   target ${target}`);
}

interface Measured {
  code: number;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

function runMeasured(args: string[], cwd: string, env: Record<string, string>): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [measure, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.on('close', () => {
      const line = stderr.split('\n').find((l) => l.startsWith('BENCH '));
      if (!line) return reject(new Error(`no figures from the run:\n${stderr}`));
      resolve(JSON.parse(line.slice(6)));
    });
  });
}

const withoutCacheMarks = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value), (key, v) => (key === 'cache_control' ? undefined : v));

async function main(): Promise<void> {
  console.log(`outrider bench — node ${process.version}, ${os.cpus().length} cores\n`);

  // 1. Start-up: --version against a bare node.
  const runs = 15;
  timeCommand([bin, '--version'], 2);
  const nodeMs = timeCommand(['-e', '0'], runs);
  const versionMs = timeCommand([bin, '--version'], runs);
  row('outrider --version (median of 15)', `${versionMs.toFixed(0)} ms`, `≤ 1.3 × node -e 0 (${nodeMs.toFixed(0)} ms → ${(1.3 * nodeMs).toFixed(0)} ms)`, versionMs <= 1.3 * nodeMs);
  console.log(`      ratio ${(versionMs / nodeMs).toFixed(2)}`);

  // 2. A 10-step loop, one read_file per step, against a zero-latency scripted model.
  const mock = await startMockProvider();
  const base = mkdtempSync(path.join(os.tmpdir(), 'outrider-bench-'));
  const project = path.join(base, 'project');
  mkdirSync(project);
  for (let i = 1; i <= 10; i += 1) writeFileSync(path.join(project, `file${i}.ts`), `export const value${i} = ${i};\n`.repeat(40));
  const env = { OUTRIDER_HOME: path.join(base, 'home'), HOME: base, ANTHROPIC_API_KEY: 'bench-key-0000', ANTHROPIC_BASE_URL: mock.anthropicBaseURL };
  const script = () => {
    for (let i = 1; i <= 10; i += 1) mock.script({ toolCalls: [{ name: 'read_file', args: { path: `file${i}.ts` } }] });
    mock.script({ text: 'Read all ten files.' });
  };
  const loops: Measured[] = [];
  for (let i = 0; i < 5; i += 1) {
    mock.reset();
    script();
    const measured = await runMeasured(['-p', 'read the ten files one by one', '--output-format', 'json'], project, env);
    if (measured.code !== 0) throw new Error(`the 10-step run failed with exit ${measured.code}`);
    loops.push(measured);
  }
  const wall = median(loops.map((m) => m.wallMs));
  const cpu = median(loops.map((m) => m.cpuMs));
  const rss = Math.max(...loops.map((m) => m.maxRssMb));
  row('10-step loop, headless: wall (median of 5)', `${wall.toFixed(0)} ms`, '≤ 300 ms', wall <= 300);
  row('10-step loop, headless: CPU (median of 5)', `${cpu.toFixed(0)} ms`, '≤ 300 ms', cpu <= 300);
  row('10-step loop, headless: peak RSS (max of 5)', `${rss.toFixed(0)} MB`, '≤ 120 MB', rss <= 120);

  // 3. What every request pays for: system prompt + tool schemas.
  const requests = mock.requests;
  const first = requests[0]!.body;
  const fixedBytes = Buffer.byteLength(JSON.stringify(first.system)) + Buffer.byteLength(JSON.stringify(first.tools));
  row('system prompt + tool schemas per request', `${(fixedBytes / 1024).toFixed(1)} KB`, '≤ 10 KB', fixedBytes <= 10 * 1024);

  // 4. Every request starts with the previous one's whole content (prompt caches hit).
  let prefixOk = true;
  for (let i = 1; i < requests.length; i += 1) {
    const before = withoutCacheMarks(requests[i - 1]!.body) as { system: unknown; tools: unknown; messages: unknown[] };
    const after = withoutCacheMarks(requests[i]!.body) as { system: unknown; tools: unknown; messages: unknown[] };
    const same =
      JSON.stringify(before.system) === JSON.stringify(after.system) &&
      JSON.stringify(before.tools) === JSON.stringify(after.tools) &&
      JSON.stringify(after.messages.slice(0, before.messages.length)) === JSON.stringify(before.messages);
    prefixOk &&= same;
  }
  row(`each request extends the previous (${requests.length} requests)`, prefixOk ? 'yes' : 'NO', 'yes', prefixOk);
  await mock.close();
}

await main();
