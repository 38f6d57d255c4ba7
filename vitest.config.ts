import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [svelte()],
  test: {
    include: ['test/unit/**/*.test.ts', 'test/golden/**/*.golden.test.ts', 'test/reliability/**/*.test.ts'],
    environment: 'node',
    // Two cores on CI: keep the pool small so the e2e stage is not starved afterwards.
    maxWorkers: 2,
    testTimeout: 20_000,
  },
});
