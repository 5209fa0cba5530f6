// Runs dist/headless.cjs through bin/code-cache.js on any Node (the launcher takes that path
// only on Node before 22.1), so the code cache is tested wherever the suite runs.
'use strict';
/* global require, __dirname */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file: require is how it loads */
const path = require('node:path');

const repo = path.resolve(__dirname, '../..');
const { main } = require(path.join(repo, 'bin/code-cache.js')).loadHeadlessBundle(path.join(repo, 'dist/headless.cjs'));
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
