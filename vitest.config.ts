import os from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    // Deadlines for a broken test, never waits: generous, so a loaded machine does not fail
    // a correct run (tests wait on conditions with until(), see test/support/until.ts).
    testTimeout: 60_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    // At least three files at once: the slow files wait on child processes, tmux or sockets
    // rather than the CPU, so on a 2-core machine vitest's default (cores - 1) would leave the
    // cores idle while they wait (warm suite, quiet 2-core machine: 92 s with two, 80 s with three).
    maxWorkers: Math.max(3, os.availableParallelism() - 1),
  },
});
