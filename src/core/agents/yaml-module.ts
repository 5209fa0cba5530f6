import { createRequire } from 'node:module';

/**
 * The `yaml` package, loaded when a front matter is first read or written, not at start-up:
 * most runs have no agent, command or skill file, and yaml's modules take several
 * milliseconds to run. `require`, not `import`: in the bundle esbuild turns this call into
 * one of yaml's lazy CommonJS wrapper (the banner of scripts/build.mjs defines `require`);
 * unbundled (the tests) it is Node's own require.
 */
export function yamlModule(): typeof import('yaml') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  if (typeof require === 'function') return require('yaml') as typeof import('yaml');
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}
