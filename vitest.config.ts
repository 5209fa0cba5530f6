import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Deadlines for a broken test, never waits: generous, so a loaded machine does not fail
    // a correct run (tests wait on conditions with until(), see test/support/until.ts).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'core',
          include: ['test/**/*.test.{ts,tsx}'],
          exclude: [...configDefaults.exclude, 'test/ui/**'],
          // At least two files at once: the slow files here wait on child processes, tmux
          // or sockets rather than the CPU, so on a 2-core machine vitest's default
          // (cores - 1) would leave a core idle while the other waits.
          maxWorkers: Math.max(2, os.availableParallelism() - 1),
        },
      },
      {
        extends: true,
        test: {
          name: 'ui',
          include: ['test/ui/**/*.test.{ts,tsx}'],
          // After the rest, one file at a time, as before: some UI tests still give a
          // render a fixed 25 ms (test/ui/harness.tsx `tick`), which CPU contention breaks.
          // Once they wait on conditions, this project can fold into 'core'.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
