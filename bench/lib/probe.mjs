// Preloaded (`node --import`) into every process the bench measures, outrider and the
// reference agent alike, so both are measured the same way: at exit it writes the
// process's own CPU time and peak RSS to $BENCH_PROBE_FILE. With an IPC channel it also
// answers 'cpu' with the CPU time so far, so a figure can take the CPU of a window
// (between two requests the mock provider saw) instead of the whole run.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const file = process.env.BENCH_PROBE_FILE;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      JSON.stringify({
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        maxRssMb: usage.maxRSS / 1024,
        // Wall time from the process's own start (before this module ran) to its exit.
        selfWallMs: performance.now(),
      }),
    );
  });
}

if (process.send && process.channel) {
  process.on('message', (message) => {
    if (message === 'cpu') process.send({ cpuMs: cpuMs() });
  });
  // The channel must not keep the measured process alive after its own work is done.
  process.channel.unref();
}
