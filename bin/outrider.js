#!/usr/bin/env node
// The launcher. `--version` is answered here, before the bundle loads: it needs nothing else.
// Everything else turns on Node's on-disk compile cache where Node has it (22.1 and later;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a second run does not compile the bundle
// and the SDKs again, then imports the bundle: a static import would load it before the cache is on.
import { readFileSync } from 'node:fs';
import module from 'node:module';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  module.enableCompileCache?.();
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}
