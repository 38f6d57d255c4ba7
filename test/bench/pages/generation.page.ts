import type { GenerationWorkerRequest } from './generation.worker';

/** Bench 9 in Chromium: the whole workload in a fresh worker, called by Playwright. */
Object.assign(globalThis, {
  benchReady: true,
  runGeneration: (request: GenerationWorkerRequest) =>
    new Promise((resolve, reject) => {
      const worker = new Worker('./generation-worker.js', { type: 'module' });
      worker.onmessage = (event) => {
        worker.terminate();
        resolve(event.data);
      };
      worker.onerror = (event) => {
        worker.terminate();
        reject(new Error(event.message));
      };
      worker.postMessage(request);
    }),
});
