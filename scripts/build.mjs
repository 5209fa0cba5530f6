// Bundles src/ into dist/ with esbuild. `--if-stale` skips the build when dist/ is newer than src/.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(import.meta.dirname, '..');
const bundle = path.join(root, 'dist/cli.js');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const fresh = existsSync(bundle) && statSync(bundle).mtimeMs >= newestMtime(path.join(root, 'src'));
if (process.argv.includes('--if-stale') && fresh) process.exit(0);

// The model SDKs touch the `Headers` and `FormData` globals on every request, and in Node either
// one loads undici (Node's fetch) on first use. Outrider gives the SDKs a fetch over node:http
// (src/core/providers/http-fetch.ts), so in the SDK modules, and only there, the two names
// point at small stand-ins instead. An import statement is hoisted wherever it stands, so it
// goes at the end of the file, where it moves no line of the SDK's own source map.
const liteGlobals = path.join(root, 'src/core/providers/lite-headers.ts');
const sdkModule = /[\\/]node_modules[\\/](?:openai|@anthropic-ai[\\/]sdk)[\\/].*\.m?js$/;
const sdkGlobals = {
  name: 'sdk-lite-globals',
  setup(build) {
    build.onLoad({ filter: sdkModule }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!/\b(?:Headers|FormData)\b/.test(source)) return undefined;
      const binding = `import { LiteHeaders as Headers, NoFormData as FormData } from ${JSON.stringify(liteGlobals)};`;
      return { contents: `${source}\n${binding}\n`, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

// msgpackr (BullMQ's encoder) tries its native addon, msgpackr-extract, and falls back to
// JavaScript when that is absent: the bundle carries none, so every machine runs the same code
// and no addon is built or fetched (.npmrc: no install scripts).
const withoutNativeMsgpack = {
  name: 'msgpackr-without-native',
  setup(build) {
    build.onResolve({ filter: /^msgpackr-extract$/ }, () => ({ path: 'msgpackr-extract', namespace: 'no-native-addon' }));
    build.onLoad({ filter: /.*/, namespace: 'no-native-addon' }, () => ({
      contents: 'module.exports = undefined;',
      loader: 'js',
    }));
  },
};

// Ink memoises every text it measures or wraps in module-level caches that never drop an entry:
// rows whose text changes every second (elapsed times, token counts, streamed lines) grow them
// for as long as the TUI runs. Ink's two modules get src/ui/ink-shims/ instead: the same answers,
// the memo bounded. Loading Ink's own copy fails the build, so a new import path cannot bring the
// unbounded caches back unnoticed.
const inkTextModules = /[\\/]node_modules[\\/]ink[\\/]build[\\/]/;
const inkBoundedCaches = {
  name: 'ink-bounded-caches',
  setup(build) {
    build.onResolve({ filter: /^\.\/(?:measure-text|wrap-text)\.js$/ }, (args) =>
      inkTextModules.test(args.importer)
        ? { path: path.join(root, 'src/ui/ink-shims', args.path.replace(/\.js$/, '.ts')) }
        : undefined,
    );
    build.onLoad({ filter: /[\\/]node_modules[\\/]ink[\\/]build[\\/](?:measure-text|wrap-text)\.js$/ }, (args) => {
      throw new Error(`${args.path} was bundled: Ink imports it some other way now; give it the bounded shim`);
    });
  },
};

// Ink draws every frame whole: it measures each line of the live area with string-width and
// splits it into styled characters with @alcalzone/ansi-tokenize, both of which segment text
// into graphemes, and the tokenizer diffs the styles of every pair of cells with new Sets. With
// 50 streaming sub-agents that was over half of the TUI's CPU. Ink's imports of the two (and
// those of the modules it measures with) get src/ui/ink-shims/ instead: the same answers, with
// the work skipped for narrow text and unstyled cells. (wrap-ansi keeps its own string-width.)
const inkShims = {
  'string-width': {
    shim: path.join(root, 'src/ui/ink-shims/string-width.ts'),
    from: /[\\/]node_modules[\\/](?:ink|widest-line|cli-truncate)[\\/]/,
  },
  '@alcalzone/ansi-tokenize': {
    shim: path.join(root, 'src/ui/ink-shims/ansi-tokenize.ts'),
    from: /[\\/]node_modules[\\/]ink[\\/]/,
  },
};
const inkFastPaths = {
  name: 'ink-fast-paths',
  setup(build) {
    build.onResolve({ filter: /^(?:string-width|@alcalzone\/ansi-tokenize)$/ }, (args) => {
      const { shim, from } = inkShims[args.path];
      return from.test(args.importer) ? { path: shim } : undefined;
    });
  },
};

// Ink keeps two kinds of escape sequence in the text it draws: SGR (colours) and OSC, for
// hyperlinks. OSC is also how a terminal is told to set its title (0, 2), write the clipboard
// (52) or notify (9, 777), and the text drawn comes from the model, tools and repository files:
// a prompt-injected README could write the user's clipboard. outrider draws no hyperlinks, so
// Ink's text sanitizer drops OSC too. The line it changes is checked: an Ink that no longer has
// it fails the build rather than letting OSC through unnoticed.
const inkSanitizer = /[\\/]node_modules[\\/]ink[\\/]build[\\/]sanitize-ansi\.js$/;
const KEEPS_OSC = "token.type === 'text' || token.type === 'osc'";
const inkWithoutOsc = {
  name: 'ink-without-osc',
  setup(build) {
    build.onLoad({ filter: inkSanitizer }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(KEEPS_OSC)) throw new Error(`${args.path}: Ink's sanitizer changed; check that OSC is still dropped`);
      return { contents: source.replace(KEEPS_OSC, "token.type === 'text'"), loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

// yoga-layout (Ink's layout) carries its WebAssembly as a base64 data: URL and reads it with
// fetch() when fetch is a function: in Node that loads undici (Node's fetch) at every TUI start,
// tens of milliseconds before the first frame. With no `fetch` in that module's scope it
// decodes the same bytes itself (atob). A declaration is hoisted wherever it stands, so it goes
// at the end of the file and moves no line of the module's source map.
const yogaWasm = /[\\/]node_modules[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/;
const yogaWithoutFetch = {
  name: 'yoga-without-fetch',
  setup(build) {
    build.onLoad({ filter: yogaWasm }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: `${source}\nvar fetch;\n`, loader: 'js', resolveDir: path.dirname(args.path) };
    });
  },
};

// Build beside dist/ and swap on success, so a failed build never leaves a half-empty dist/.
const staging = path.join(root, 'dist.partial');
rmSync(staging, { recursive: true, force: true });

// The tools' JSON Schemas, made once here rather than on every start-up
// (src/core/tools/schema-table.ts): a session's tools, converted by a script run from staging.
const tableScript = path.join(staging, 'tool-schema-table.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/tool-schema-table.ts'],
  outfile: tableScript,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'warning',
});
const toolSchemas = execFileSync(process.execPath, [tableScript], { cwd: root, encoding: 'utf8' });
JSON.parse(toolSchemas); // a table, or the build stops here
rmSync(tableScript);
await build({
  absWorkingDir: root,
  // The JavaScript grep's worker is an entry of its own: grep-js.ts starts it from beside the bundle.
  entryPoints: { cli: 'src/cli/main.ts', 'grep-worker': 'src/core/tools/grep-worker.ts' },
  outdir: staging,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Dependencies are bundled: one file loads far faster than hundreds of small modules
  // (the SDKs alone are ~300 ms of module resolution), and `npx outrider` installs nothing.
  // Ink loads react-devtools-core only when DEV=true; it is not a dependency.
  external: ['react-devtools-core'],
  // jsonc-parser's "main" is a UMD wrapper whose require() calls esbuild cannot follow (the
  // bundle would require ./impl/format at run time and crash); its ES module build bundles.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  banner: {
    js: "import { createRequire as __outriderRequire } from 'node:module'; const require = __outriderRequire(import.meta.url);",
  },
  jsx: 'automatic',
  // React, its reconciler and the JSX runtime pick their production builds by this name: left
  // to the environment, the bundle carried the development ones, whose checks and bookkeeping
  // made each TUI frame cost about twice its work. The tool schemas are made at build time.
  define: { 'process.env.NODE_ENV': '"production"', __OUTRIDER_TOOL_SCHEMAS__: toolSchemas },
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
  plugins: [sdkGlobals, withoutNativeMsgpack, inkFastPaths, inkBoundedCaches, yogaWithoutFetch, inkWithoutOsc],
});

// The headless run (-p) as one CommonJS file: bin/code-cache.js compiles it through node:vm
// with a V8 code cache of its own, which an ES module cannot have (docs/architecture.md). The TUI stays out (Ink and yoga use top-level await,
// which CommonJS cannot hold): were a run to want it after all, the stand-in for ui/run.js
// hands its parsed options to the ES module bundle's runTui (through bin/code-cache.js's import()).
const withoutTui = {
  name: 'headless-without-tui',
  setup(build) {
    build.onResolve({ filter: /[\\/]ui[\\/]run\.js$/ }, () => ({ path: 'ui-run', namespace: 'esm-cli' }));
    build.onLoad({ filter: /.*/, namespace: 'esm-cli' }, () => ({
      contents: `export async function runInteractive(options, env, early) {
        const path = require('node:path');
        const { importModule } = require(path.join(__dirname, '..', 'bin', 'code-cache.js'));
        const { runTui } = await importModule(require('node:url').pathToFileURL(path.join(__dirname, 'cli.js')).href);
        return runTui(options, env, early);
      }`,
      loader: 'js',
    }));
  },
};
// `outrider worker` never runs from here (the launcher sends only -p runs to this file): BullMQ
// and ioredis stay out of the headless bundle, whose every byte is read at each start.
const withoutWorker = {
  name: 'headless-without-worker',
  setup(build) {
    build.onResolve({ filter: /[\\/]remote[\\/]worker-main\.js$/ }, () => ({ path: 'worker-main', namespace: 'no-worker' }));
    build.onLoad({ filter: /.*/, namespace: 'no-worker' }, () => ({
      contents: `export function startWorker() { throw new Error('outrider worker does not run with -p'); }
        export function isWorkerSetupError() { return false; }`,
      loader: 'js',
    }));
  },
};
// `outrider acp` never runs from here either (the launcher sends it here only with -p, which it refuses):
// the ACP SDK stays out of the headless bundle.
const withoutAcp = {
  name: 'headless-without-acp',
  setup(build) {
    build.onResolve({ filter: /[\\/]acp[\\/]acp-command\.js$/ }, () => ({ path: 'acp-command', namespace: 'no-acp' }));
    build.onLoad({ filter: /.*/, namespace: 'no-acp' }, () => ({
      contents: `export async function runAcpCommand(options, args, io) {
        io.stderr.write('outrider: outrider acp takes its prompts from the editor: drop -p\\n');
        return 2;
      }`,
      loader: 'js',
    }));
  },
};
// Every byte of headless.cjs is read, hashed and matched to its code cache at each start, and
// most runs never use the libraries of two features: --queue's (BullMQ, ioredis: 1.7 MB of source)
// and web_fetch's page reader (linkedom, Readability, turndown). They are built into files of their
// own beside it, which the bundle requires the first time the feature runs (both are imported
// lazily already), so a plain -p run does not carry them: its first request went out 14 ms later
// with them in. Each package is one module of its side file, so its users share one copy.
const sideBundles = {
  'remote-deps': ['bullmq', 'ioredis'],
  'web-deps': ['linkedom', '@mozilla/readability', 'turndown'],
};
const sideOf = new Map(Object.entries(sideBundles).flatMap(([file, packages]) => packages.map((name) => [name, file])));
const bareName = (name) => name.replace(/[^a-z0-9]/gi, '_');
for (const [file, packages] of Object.entries(sideBundles)) {
  await build({
    absWorkingDir: root,
    stdin: {
      contents: packages.map((name) => `export * as ${bareName(name)} from ${JSON.stringify(name)};`).join('\n'),
      resolveDir: root,
      loader: 'js',
    },
    outfile: path.join(staging, `${file}.cjs`),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    define: { 'process.env.NODE_ENV': '"production"' },
    legalComments: 'none',
    minify: true,
    logLevel: 'warning',
    plugins: [withoutNativeMsgpack],
  });
}
// Each package stands in the bundle as an ES module of its names (read from the side file once
// built), so `import('turndown')` gets its default export as Node gives an ES module's, and a
// name a package lacks fails the build rather than reading undefined.
const sideRequire = createRequire(import.meta.url);
const withSideBundles = {
  name: 'headless-side-bundles',
  setup(build) {
    const filter = new RegExp(`^(?:${[...sideOf.keys()].map((name) => name.replace(/[/.]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'side-bundle' }));
    build.onLoad({ filter: /.*/, namespace: 'side-bundle' }, (args) => {
      const file = `./${sideOf.get(args.path)}.cjs`;
      const names = Object.keys(sideRequire(path.join(staging, file))[bareName(args.path)]);
      const named = names.filter((name) => name !== 'default' && /^[A-Za-z_$][\w$]*$/.test(name));
      return {
        contents: [
          `const ns = require(${JSON.stringify(file)}).${bareName(args.path)};`,
          ...named.map((name) => `export const ${name} = ns.${name};`),
          ...(names.includes('default') ? ['export default ns.default;'] : []),
        ].join('\n'),
        loader: 'js',
      };
    });
    build.onResolve({ filter: /^\.\/(?:remote|web)-deps\.cjs$/ }, (args) => ({ path: args.path, external: true }));
  },
};
await build({
  absWorkingDir: root,
  entryPoints: { headless: 'src/cli/main.ts' },
  outExtension: { '.js': '.cjs' },
  outdir: staging,
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
  // import.meta has no CommonJS form: its url is this file's (createRequire, the grep worker beside it).
  banner: { js: "const __outriderMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: {
    'process.env.NODE_ENV': '"production"',
    __OUTRIDER_TOOL_SCHEMAS__: toolSchemas,
    'import.meta.url': '__outriderMetaUrl',
  },
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  logLevel: 'warning',
  plugins: [sdkGlobals, withoutTui, withoutWorker, withoutAcp, withSideBundles, withoutNativeMsgpack],
});

rmSync(path.join(root, 'dist'), { recursive: true, force: true });
renameSync(staging, path.join(root, 'dist'));
