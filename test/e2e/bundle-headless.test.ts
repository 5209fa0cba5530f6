/**
 * The headless bundle (-p) leaves --queue's and web_fetch's libraries to files of their own,
 * read only when the feature runs: every byte of headless.cjs is read and matched to its code
 * cache at each start. (remote-session and web-tools run both features through the binary.)
 * Needs `npm run build`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../support/run-cli.js';

const sources = (file: string) =>
  (JSON.parse(readFileSync(path.join(REPO, 'dist', `${file}.map`), 'utf8')) as { sources: string[] }).sources;
const SIDE = /node_modules\/(?:bullmq|ioredis|linkedom|turndown|@mozilla\/readability)\//;

it("keeps the queue's and the page reader's libraries out of headless.cjs", () => {
  const headless = sources('headless.cjs');
  // The check sees the bundle's sources at all: the SDK is in it.
  expect(headless.some((source) => source.includes('node_modules/@anthropic-ai/sdk/'))).toBe(true);
  expect(headless.filter((source) => SIDE.test(source))).toEqual([]);
  for (const side of ['remote-deps.cjs', 'web-deps.cjs']) expect(existsSync(path.join(REPO, 'dist', side)), side).toBe(true);
});
