// Runs dist/headless.cjs (the headless CLI as one CommonJS file) with a V8 code cache: the
// bundle is compiled through node:vm, whose Script takes and makes V8's cached data, so a second
// run neither parses nor compiles what the first one ran (the functions it compiled lazily too,
// which Node's own compile cache, where it has one, leaves out). The cache is the user's (in
// outrider's home, never a shared temp folder: cached data is code), one file per bundle and
// Node version, written at exit when there was none or V8 turned it down. V8 checks the data's
// version, flags and source, but a release build does not check its bytes (a damaged cache is a
// fatal error, not a rejection), so the file starts with the SHA-256 of the data, checked before
// V8 sees it (~0.5 ms). Any failure here costs only the cache: the bundle then compiles as it
// would have. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own.
'use strict';
/* global require, module */
/* eslint-disable @typescript-eslint/no-require-imports -- a CommonJS file: require is how it loads */

const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const { createRequire } = require('node:module');

const PREFIX = 'headless-';
const DIGEST_BYTES = 32;

const sha256 = (data) => require('node:crypto').createHash('sha256').update(data).digest();

/** outrider's home, as src/core/config/paths.ts has it. */
function outriderHome(env) {
  const override = env.OUTRIDER_HOME?.trim();
  return override ? path.resolve(override) : path.join(env.HOME || require('node:os').homedir(), '.outrider');
}

/** The cached data, if the file holds some whose digest is right. */
function readCache(file) {
  let bytes;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= DIGEST_BYTES) return undefined;
  const data = bytes.subarray(DIGEST_BYTES);
  return sha256(data).equals(bytes.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** Writes the new cache beside its name and renames it in (a reader never sees half a file); drops older ones. */
function writeCache(dir, file, makeData) {
  try {
    const data = makeData();
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, Buffer.concat([sha256(data), data]), { mode: 0o600 });
    fs.renameSync(partial, file);
    for (const name of fs.readdirSync(dir)) {
      if (name.startsWith(PREFIX) && path.join(dir, name) !== file) fs.rmSync(path.join(dir, name), { force: true });
    }
  } catch {
    // A read-only home, a full disk, V8 unable to serialize: the next run compiles again.
  }
}

/** Loads the bundle (compiled from the cache where it can be) and returns its exports: `{ main }`. */
function loadHeadlessBundle(bundle) {
  const source = fs.readFileSync(bundle, 'utf8');
  const useCache = process.env.NODE_DISABLE_COMPILE_CACHE !== '1';
  const stat = fs.statSync(bundle);
  const dir = path.join(outriderHome(process.env), 'cache');
  const file = path.join(dir, `${PREFIX}${process.version}-${process.arch}-${stat.size}-${Math.floor(stat.mtimeMs)}.v8`);
  const cachedData = useCache ? readCache(file) : undefined;
  // Node's own CommonJS wrapper, so the bundle sees require, module and __filename as a file would.
  const wrapper = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const script = new vm.Script(wrapper, {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  const bundleModule = { exports: {} };
  script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, path.dirname(bundle));
  if (useCache && (!cachedData || script.cachedDataRejected)) {
    // At exit, so the functions the run compiled are in it, not only the top level.
    process.once('exit', () => writeCache(dir, file, () => script.createCachedData()));
  }
  return bundleModule.exports;
}

/**
 * import() for the bundle: code that node:vm compiled cannot import on Node 20 (that needs
 * --experimental-vm-modules), code that Node compiled can. The bundle's ui/run.js stand-in uses
 * it to hand a run that wants the TUI after all to the ES module bundle.
 */
const importModule = (specifier) => import(specifier);

module.exports = { loadHeadlessBundle, importModule };
