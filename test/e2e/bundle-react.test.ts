/**
 * The bundle carries React's production builds: React picks them by process.env.NODE_ENV,
 * which the build defines. Without it, the TUI ran the development reconciler, whose checks
 * cost about half of each frame. Needs `npm run build`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../support/run-cli.js';

/** A warning only the development build of react-reconciler holds. */
const DEVELOPMENT_ONLY = 'while rendering a different component';

it("holds React's production builds, not the development ones", () => {
  const dist = path.join(REPO, 'dist');
  const chunks = readdirSync(dist).filter((name) => name.endsWith('.js'));
  const source = chunks.map((name) => readFileSync(path.join(dist, name), 'utf8')).join('\n');
  // The reconciler is in the bundle at all (or the check proves nothing).
  expect(source).toContain('Minified React error');
  expect(source).not.toContain(DEVELOPMENT_ONLY);
});

it("bundles the bounded copies of Ink's text caches, not Ink's own", () => {
  const dist = path.join(REPO, 'dist');
  const maps = readdirSync(dist).filter((name) => name.endsWith('.js.map'));
  const sources = maps.flatMap(
    (name) => (JSON.parse(readFileSync(path.join(dist, name), 'utf8')) as { sources: string[] }).sources,
  );
  expect(sources.some((source) => source.endsWith('src/ui/ink-shims/measure-text.ts'))).toBe(true);
  expect(sources.some((source) => source.endsWith('src/ui/ink-shims/wrap-text.ts'))).toBe(true);
  expect(sources.filter((source) => /ink\/build\/(?:measure|wrap)-text\.js$/.test(source))).toEqual([]);
});
