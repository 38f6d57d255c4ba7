import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [svelte()],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/golden/**/*.golden.test.ts', 'test/reliability/**/*.test.ts'],
    environment: 'node',
    // Two cores on CI: keep the pool small so the e2e stage is not starved afterwards.
    maxWorkers: 2,
    // Time limits catch hangs, not slowness: CI machines are shared and noisy, and a test that
    // took a few seconds here took several times that there. Speed is measured by `npm run bench`.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
