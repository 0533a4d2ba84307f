// Vitest configuration: unit and API tests beside the code, namespace tests under e2e/.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'contracts/**/*.test.ts',
      'platform/**/*.test.ts',
      'server/**/*.test.ts',
      'relay/**/*.test.ts',
      'engine/**/*.test.ts',
      'cli/**/*.test.{ts,tsx}',
      'electron/**/*.test.ts',
      'renderer/**/*.test.{ts,tsx}',
      'scripts/**/*.test.ts',
      'native/**/*.test.ts',
      'e2e/**/*.test.ts',
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own servers and databases; two cores run two files at a time.
    fileParallelism: true,
    maxWorkers: 2,
  },
});
