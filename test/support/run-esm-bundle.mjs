// Runs the ES module bundle (dist/cli.js) as the launcher does on Node 22.1 and later, on any
// Node: on an older one the launcher runs -p from dist/headless.cjs instead (bin/code-cache.js),
// so tests of what the ES module bundle loads lazily start it here.
import { main } from '../../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
