import type { EmbeddingWorkerRequest } from './embeddings.worker';

/** Bench 6 in Chromium: one model file and thread count in a fresh worker, called by Playwright. */
Object.assign(globalThis, {
  benchReady: true,
  hardwareConcurrency: navigator.hardwareConcurrency,
  runEmbeddings: (request: EmbeddingWorkerRequest) =>
    new Promise((resolve, reject) => {
      const worker = new Worker('./embeddings-worker.js', { type: 'module' });
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
