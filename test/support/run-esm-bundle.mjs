// Runs the ES module bundle (dist/cli.js), which the launcher gives everything but -p (that runs
// from dist/headless.cjs), with any arguments: tests of what the ES module bundle loads lazily,
// for a prompt too, start it here.
import { main } from '../../dist/cli.js';

process.exitCode = await main(process.argv.slice(2));
