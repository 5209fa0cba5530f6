#!/usr/bin/env node
// The launcher. CommonJS (bin/package.json says so): Node starts a CommonJS entry a few
// milliseconds sooner than an ES module one, whose loader it would have to set up first, and
// `--version` is nothing but start-up. `--version` is answered here, before the bundle loads:
// it needs nothing else.
//
// A headless run (-p) loads the CLI as one CommonJS file, dist/headless.cjs, compiled from a V8
// code cache of outrider's own (code-cache.js): on Node 20 it is the only compile cache there
// is, and on Node 24 it still starts sooner than the ES module bundle with Node's own cache (that
// one holds no function the run compiled lazily, and the module loader links a dozen chunks).
// Everything else (the TUI: Ink and yoga use top-level await, which CommonJS cannot hold)
// imports dist/cli.js, an ES module, with Node's on-disk compile cache on where Node has it
// (22.1 and later). NODE_DISABLE_COMPILE_CACHE=1 turns either cache off.
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
} else if (argv.some((arg) => arg === '-p' || arg === '--print' || arg.startsWith('--print='))) {
  const { main } = require('./code-cache.js').loadHeadlessBundle(
    require('node:path').join(__dirname, '..', 'dist', 'headless.cjs'),
  );
  main(argv).then((code) => {
    process.exitCode = code;
  });
} else {
  require('node:module').enableCompileCache?.();
  import('../dist/cli.js').then(async ({ main }) => {
    process.exitCode = await main(argv);
  });
}
