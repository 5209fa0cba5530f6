import { mkdirSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type MockProvider, startMockProvider } from './mock-provider.js';
import { TEST_KEY, tempDirs } from './run-cli.js';

/** What an end-to-end test of the binary works with; refreshed before each test. */
export interface MockProject {
  mock: MockProvider;
  /** An empty project folder, the binary's working directory. */
  project: string;
  /** The binary's state folder (OUTRIDER_HOME). */
  home: string;
  /** A clean environment pointing the binary at the mock provider. */
  env: Record<string, string>;
}

/** One mock provider for the test file, and a fresh project and state folder for each test. */
export function useMockProject(): MockProject {
  const t = {} as MockProject;
  beforeAll(async () => {
    t.mock = await startMockProvider();
  });
  afterAll(() => t.mock.close());
  beforeEach(() => {
    t.mock.reset();
    ({ project: t.project, home: t.home } = tempDirs());
    mkdirSync(t.project, { recursive: true });
    t.env = { OUTRIDER_HOME: t.home, ANTHROPIC_API_KEY: TEST_KEY, ANTHROPIC_BASE_URL: t.mock.anthropicBaseURL };
  });
  return t;
}
