// Runs the built CLI in this process and reports its own wall time (from process start),
// CPU time and peak RSS on stderr as one JSON line, for bench/run.ts.
import { performance } from 'node:perf_hooks';

const { main } = await import('../dist/cli.js');
const code = await main(process.argv.slice(2));
const usage = process.resourceUsage();
process.stderr.write(
  `\nBENCH ${JSON.stringify({
    code,
    wallMs: performance.now(),
    cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
    maxRssMb: usage.maxRSS / 1024,
  })}\n`,
);
process.exitCode = code;
