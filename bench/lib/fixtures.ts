/** Projects, environments and the reference agent the figures run against. */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MockProvider } from '../../test/support/mock-provider.js';
import { REPO } from './processes.js';

export type Provider = 'anthropic' | 'openai';

// Made on first use: a worker process (bench/worker.ts) loads this module but makes no fixtures.
let made: string | undefined;
const root = () => (made ??= mkdtempSync(path.join(os.tmpdir(), 'outrider-bench-')));

/** The floor: a plain-Node agent kept outside the repository, beside it (`../shared/`). */
export function referenceAgent(): string {
  const file = process.env.OUTRIDER_BENCH_REFERENCE ?? path.resolve(REPO, '../shared/bench/reference-agent.mjs');
  if (!existsSync(file)) {
    throw new Error(
      `the reference agent is not at ${file}: the bench compares outrider with it. ` +
        'Put the shared folder beside the repository (../shared/bench/reference-agent.mjs) or set OUTRIDER_BENCH_REFERENCE.',
    );
  }
  return file;
}

/** A fresh project folder with `count` files of about `bytes` bytes each: file1.ts … */
export function project(name: string, count: number, bytes: number): { dir: string; files: string[] } {
  const dir = path.join(root(), name);
  mkdirSync(dir, { recursive: true });
  const files: string[] = [];
  for (let i = 1; i <= count; i += 1) {
    const line = `export const value${i} = ${i}; // a line of a file the model asked to read\n`;
    const file = `file${i}.ts`;
    writeFileSync(path.join(dir, file), line.repeat(Math.max(1, Math.round(bytes / line.length))));
    files.push(file);
  }
  return { dir, files };
}

/** A fresh state folder for outrider (sessions, settings): nothing of the user's is read. */
export function home(name: string): string {
  const dir = path.join(root(), `${name}-home`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The environment of an outrider run against the mock. */
export function outriderEnv(
  mock: MockProvider,
  provider: Provider,
  state: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    HOME: state,
    OUTRIDER_HOME: state,
    ...(provider === 'anthropic'
      ? { ANTHROPIC_API_KEY: 'bench-key-0000', ANTHROPIC_BASE_URL: mock.anthropicBaseURL }
      : { OPENAI_API_KEY: 'bench-key-0000', OPENAI_BASE_URL: mock.openaiBaseURL }),
    ...extra,
  };
}

/** The reference agent's arguments for the same run. */
export function referenceArgs(mock: MockProvider, provider: Provider, prompt: string): string[] {
  const base = provider === 'anthropic' ? mock.anthropicBaseURL : mock.openaiBaseURL;
  return [referenceAgent(), '-p', prompt, '--base-url', base, '--provider', provider];
}

export function referenceEnv(provider: Provider): Record<string, string> {
  return provider === 'anthropic' ? { ANTHROPIC_API_KEY: 'bench-key-0000' } : { OPENAI_API_KEY: 'bench-key-0000' };
}

/** Scripts one read_file per step, then a final answer. */
export function scriptReads(mock: MockProvider, files: string[]): void {
  for (const file of files) mock.script({ toolCalls: [{ name: 'read_file', args: { path: file } }] });
  mock.script({ text: `Read ${files.length} files.` });
}

export function tempDir(name: string): string {
  const dir = path.join(root(), name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Removes every folder the figures made. */
export function cleanupFixtures(): void {
  if (made) rmSync(made, { recursive: true, force: true });
  made = undefined;
}
