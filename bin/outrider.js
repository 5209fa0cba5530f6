#!/usr/bin/env node
// The launcher. CommonJS (bin/package.json says so): Node starts a CommonJS entry a few
// milliseconds sooner than an ES module one, whose loader it would have to set up first, and
// `--version` is nothing but start-up. `--version` is answered here, before the bundle loads:
// it needs nothing else. Everything else turns on Node's on-disk compile cache where Node has
// it (22.1 and later; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a second run does not
// compile the bundle and the SDKs again, then imports the bundle (an ES module) with import().
// An older Node has no such cache for ES modules: there a headless run (-p) loads the same CLI
// as one CommonJS file with a code cache of outrider's own (code-cache.js); the TUI stays an ES module.
'use strict';
/* global require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file: require is how it loads */

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
  const fs = require('node:fs');
  const { version } = JSON.parse(fs.readFileSync(require('node:path').join(__dirname, '..', 'package.json'), 'utf8'));
  // A plain write to fd 1: process.stdout would load the stream modules for six bytes.
  try {
    fs.writeSync(1, `${version}\n`);
  } catch {
    process.stdout.write(`${version}\n`);
  }
} else if (require('node:module').enableCompileCache) {
  require('node:module').enableCompileCache();
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(argv);
  });
} else if (argv.some((arg) => arg === '-p' || arg === '--print' || arg.startsWith('--print='))) {
  // An older Node, headless: the CommonJS bundle, compiled from a code cache of our own (code-cache.js).
  const { main } = require('./code-cache.js').loadHeadlessBundle(
    require('node:path').join(__dirname, '..', 'dist', 'headless.cjs'),
  );
  main(argv).then((code) => {
    process.exitCode = code;
  });
} else {
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(argv);
  });
}
