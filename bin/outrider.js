#!/usr/bin/env node
// The launcher. `--version` is answered here, before the bundle loads: it needs nothing else.
// Everything else turns on Node's on-disk compile cache where Node has it (22.1 and later;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a second run does not compile the bundle
// and the SDKs again, then imports the bundle: a static import would load it before the cache is on.
import module from 'node:module';

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  // Start-up is the whole cost of --version, so it loads nothing it can avoid: the CommonJS fs
  // (`import 'node:fs'` would build its ES module face, loading fs/promises and more) and a
  // plain write to fd 1 (process.stdout would load the stream modules for six bytes).
  const fs = process.getBuiltinModule?.('node:fs') ?? (await import('node:fs'));
  const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  try {
    fs.writeSync(1, `${version}\n`);
  } catch {
    process.stdout.write(`${version}\n`);
  }
} else {
  module.enableCompileCache?.();
  const { main } = await import('../dist/cli.js');
  process.exitCode = await main(argv);
}
