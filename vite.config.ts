import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defaultClientConditions, defineConfig, type Plugin, type Rollup } from 'vite';
import { VitePWA, type VitePWAOptions } from 'vite-plugin-pwa';

// The PWA and security-header settings live here rather than in imported files: Vite's coming
// native config loader cannot import extensionless TypeScript, and tsconfig forbids `.ts` imports.

// ── Security headers ─────────────────────────────────────────────────────────────────────────

/**
 * The production Content-Security-Policy, one directive per line so a review sees each grant.
 * - script-src: no inline scripts and no eval; 'wasm-unsafe-eval' only lets ONNX Runtime compile
 *   WebAssembly.
 * - style-src 'unsafe-inline': Svelte transitions and KaTeX write `style` attributes; styles cannot
 *   run code, so this does not weaken script-src.
 * - img-src has no remote origins, so a rendered answer cannot leak data through an image URL.
 * - connect-src stays wide because the user picks the provider (any https origin, or a local
 *   server on localhost/127.0.0.1).
 */
export const CSP_DIRECTIVES: readonly string[] = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "img-src 'self' data: blob:",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "connect-src 'self' https: http://localhost:* http://127.0.0.1:*",
  "font-src 'self' data:",
];

export const CONTENT_SECURITY_POLICY = CSP_DIRECTIVES.join('; ');

/**
 * Headers every Carrel host must send. COOP + COEP make the page cross-origin isolated so ONNX
 * Runtime may use SharedArrayBuffer threads; COEP `credentialless` (not `require-corp`) keeps
 * cross-origin provider calls working, since CORS requests are unaffected and no provider has to
 * send Cross-Origin-Resource-Policy.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'credentialless',
  'X-Content-Type-Options': 'nosniff',
};

/** Netlify / Cloudflare Pages `_headers` format: a path pattern, then indented `Name: value` lines. */
export function renderHeadersFile(
  headers: Readonly<Record<string, string>> = SECURITY_HEADERS,
): string {
  const lines = Object.entries(headers).map(([name, value]) => `  ${name}: ${value}`);
  return ['/*', ...lines, ''].join('\n');
}

/**
 * Serves SECURITY_HEADERS from `vite` (dev) and `vite preview`, and writes `_headers` next to the
 * built files so a static host can serve the same policy (see docs/hosting.md).
 */
export function serveSecurityHeaders(): Plugin {
  return {
    name: 'carrel:security-headers',
    config: () => ({
      server: { headers: { ...SECURITY_HEADERS } },
      preview: { headers: { ...SECURITY_HEADERS } },
    }),
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: renderHeadersFile() });
    },
  };
}

/** Addresses a request from this same machine comes from. */
const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * `vite preview` gzips every script and JSON response as it sends it. Over loopback (`npm
 * start`, the end-to-end tests) that saves no time and costs CPU on both ends, for every file of
 * every page load and for the service worker's whole precache: a request from this machine is
 * answered uncompressed. Requests from other machines are compressed as before.
 */
export function servePlainOverLoopback(): Plugin {
  return {
    name: 'carrel:plain-over-loopback',
    configurePreviewServer(server) {
      // Added here, before `vite preview` adds its compression, which then finds nothing to do.
      server.middlewares.use((request, _response, next) => {
        if (LOOPBACK_ADDRESSES.has(request.socket.remoteAddress ?? '')) delete request.headers['accept-encoding'];
        next();
      });
    },
  };
}

// ── ONNX Runtime ─────────────────────────────────────────────────────────────────────────────

/**
 * transformers.js imports ONNX Runtime's WebGPU build, whose WebAssembly file (28 MB) carries the
 * WebGPU kernels on top of the CPU ones. Carrel embeds on the CPU (`device: 'wasm'`), so the
 * import is pointed at the WASM-only build (14 MB). The `onnxruntime-web-use-extern-wasm`
 * condition picks the entry that loads the Emscripten loader from `env.wasm.wasmPaths` (served by
 * the app, see src/workers/embedding/ort-wasm-paths.ts) instead of carrying a second copy of it.
 */
export const ORT_WEB_IMPORT = 'onnxruntime-web/webgpu';
export const ORT_WEB_WASM_ENTRY = 'onnxruntime-web/wasm';
export const ORT_EXTERN_WASM_CONDITION = 'onnxruntime-web-use-extern-wasm';

/**
 * The real WebGPU build, under a name of its own: the generation worker loads it only where WebGPU
 * has an adapter (src/workers/generation/ort-webgpu-runtime.ts).
 */
export const ORT_WEBGPU_IMPORT = 'carrel-ort-webgpu';

export const ORT_RESOLVE = {
  alias: [
    { find: new RegExp(`^${ORT_WEBGPU_IMPORT}$`), replacement: ORT_WEB_IMPORT },
    { find: new RegExp(`^${ORT_WEB_IMPORT}$`), replacement: ORT_WEB_WASM_ENTRY },
  ],
  conditions: [ORT_EXTERN_WASM_CONDITION, ...defaultClientConditions],
};

// ── Progressive web app ──────────────────────────────────────────────────────────────────────

/**
 * Largest single file the service worker precaches: ONNX Runtime's WebAssembly build (14 MB).
 * Workbox's 2 MiB default would silently leave it out, and the biggest gpt-tokenizer rank chunk
 * (2 MB) too: the model, then token counts, would fail offline.
 */
export const MAX_PRECACHE_FILE_BYTES = 16 * 1024 * 1024;

/**
 * What the service worker installs up front: the shell and what chats and projects need offline
 * (screens, workers, tokenizer ranks, pdf.js, KaTeX with its WOFF2 fonts, icons), and ONNX
 * Runtime's WebAssembly build (14 MB) that embeddings and the built-in model run on. That one
 * cannot wait for the runtime cache: a first model download usually comes before the service
 * worker controls the page, so its fetch of the runtime would never be kept, and the model
 * would not start offline.
 */
export const PRECACHE_GLOB_PATTERNS: readonly string[] = [
  '**/*.{html,js,mjs,css,json,webmanifest,svg,png,ico,woff2,txt}',
  '**/ort-wasm-simd-threaded-*.wasm',
];

/**
 * Left to the runtime cache (kept on first use, so it works offline from then on):
 * - ONNX Runtime's WebGPU build (27 MB), which only runs where WebGPU has an adapter;
 * - KaTeX's WOFF and TTF fonts, which only browsers without WOFF2 ask for.
 * Mermaid's chunks are left out too (see `lazyOnlyChunks`).
 */
export const PRECACHE_GLOB_IGNORES: readonly string[] = [
  '**/*.map',
  '**/_headers',
  '**/ort-wasm-simd-threaded.asyncify*',
  '**/KaTeX_*.woff',
  '**/KaTeX_*.ttf',
];

/** Same-origin hashed files the app loaded that the precache does not hold. */
export const RUNTIME_ASSET_CACHE = 'carrel-assets';

/**
 * Dynamic imports whose whole subgraph is left to the runtime cache: Mermaid (about 5 MB over
 * some fifty chunks) draws diagrams in artifact previews and is fetched on the first diagram.
 */
const LAZY_ONLY_IMPORTS = /\/node_modules\/mermaid\//;

/**
 * The chunks reachable only through a LAZY_ONLY_IMPORTS entry: walked from the entries along
 * static and dynamic imports, stopping at those entries. Worker bundles are assets of this build
 * and are not touched.
 */
export function lazyOnlyChunks(bundle: Rollup.OutputBundle): Set<string> {
  const chunks = new Map<string, Rollup.OutputChunk>();
  for (const output of Object.values(bundle)) if (output.type === 'chunk') chunks.set(output.fileName, output);
  const isLazyRoot = (chunk: Rollup.OutputChunk) =>
    chunk.isDynamicEntry && !chunk.isEntry && chunk.facadeModuleId !== null && LAZY_ONLY_IMPORTS.test(chunk.facadeModuleId);
  const reached = new Set<string>();
  const queue = [...chunks.values()].filter((chunk) => chunk.isEntry).map((chunk) => chunk.fileName);
  while (queue.length > 0) {
    const fileName = queue.pop() ?? '';
    const chunk = chunks.get(fileName);
    if (chunk === undefined || reached.has(fileName) || isLazyRoot(chunk)) continue;
    reached.add(fileName);
    queue.push(...chunk.imports, ...chunk.dynamicImports);
  }
  return new Set([...chunks.keys()].filter((fileName) => !reached.has(fileName)));
}

/** Records the build's lazy-only chunks for the precache manifest, which is written after the bundle. */
function recordLazyOnlyChunks(into: Set<string>): Plugin {
  return {
    name: 'carrel:lazy-only-chunks',
    apply: 'build',
    generateBundle(_options, bundle) {
      into.clear();
      for (const fileName of lazyOnlyChunks(bundle)) into.add(fileName);
    },
  };
}

export const THEME_COLOUR = '#1f2933';
export const BACKGROUND_COLOUR = '#14181d';

/**
 * vite-plugin-pwa options. The service worker answers precached URLs (and navigations with
 * index.html) and keeps the build's other files under `/assets/` (same origin, content-hashed)
 * once they were fetched; every other request, including every provider call and anything
 * carrying an Authorization / x-api-key / x-goog-api-key header, goes to the network untouched
 * and is never stored. `lazyOnly` holds the chunks left out of the precache (filled in by
 * `recordLazyOnlyChunks` before the manifest is written).
 */
export function createPwaOptions(lazyOnly: ReadonlySet<string> = new Set()): Partial<VitePWAOptions> {
  return {
    strategies: 'generateSW',
    // A new version waits until the person accepts the prompt (src/pwa/update-prompt.ts).
    registerType: 'prompt',
    // src/pwa registers through `virtual:pwa-register`; an injected inline script would break the CSP.
    injectRegister: false,
    manifest: {
      id: '/',
      name: 'Carrel',
      short_name: 'Carrel',
      description:
        'A local-first LLM workspace. Your chats, projects and files stay in your browser.',
      lang: 'en',
      start_url: '/',
      scope: '/',
      display: 'standalone',
      theme_color: THEME_COLOUR,
      background_color: BACKGROUND_COLOUR,
      categories: ['productivity', 'utilities'],
      icons: [
        { src: 'icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: 'icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        { src: 'icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
      shortcuts: [
        {
          name: 'New chat',
          short_name: 'New chat',
          url: '/#/',
          icons: [{ src: 'icon-192.png', sizes: '192x192', type: 'image/png' }],
        },
      ],
    },
    workbox: {
      globPatterns: [...PRECACHE_GLOB_PATTERNS],
      globIgnores: [...PRECACHE_GLOB_IGNORES],
      manifestTransforms: [
        (entries) => ({ manifest: entries.filter((entry) => !lazyOnly.has(entry.url)), warnings: [] }),
      ],
      maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
      runtimeCaching: [
        {
          // Hashed names never change content: the first copy fetched serves from then on.
          urlPattern: ({ sameOrigin, url, request }) =>
            sameOrigin && request.method === 'GET' && url.pathname.startsWith('/assets/'),
          handler: 'CacheFirst',
          options: {
            cacheName: RUNTIME_ASSET_CACHE,
            cacheableResponse: { statuses: [200] },
            // Older versions' files go once newer ones have been used.
            expiration: { maxEntries: 200, purgeOnQuotaError: true },
          },
        },
      ],
      navigateFallback: 'index.html',
      cleanupOutdatedCaches: true,
      // Never skip waiting on its own: that would swap code under a running generation.
      skipWaiting: false,
      // Only takes effect on the first install (no old version to protect) or after the person
      // accepted an update, when every tab reloads onto the new version anyway.
      clientsClaim: true,
      sourcemap: false,
    },
    devOptions: { enabled: false },
  };
}

const lazyOnly = new Set<string>();

/** zod with the strict-CSP set-up that configures it, in one chunk that runs before any schema. */
export const BOOT_CHUNK = {
  name: 'boot',
  test: /[\\/]node_modules[\\/]zod[\\/]|[\\/]src[\\/]boot[\\/]strict-csp\.ts$/,
  priority: 10,
};

export default defineConfig({
  plugins: [
    svelte(),
    recordLazyOnlyChunks(lazyOnly),
    VitePWA(createPwaOptions(lazyOnly)),
    serveSecurityHeaders(),
    servePlainOverLoopback(),
  ],
  resolve: ORT_RESOLVE,
  // Workers are bundled on their own: the same execution order holds there (each worker's
  // first import configures zod for the CSP before any other module can parse).
  worker: { format: 'es', rolldownOptions: { output: { strictExecutionOrder: true } } },
  build: {
    target: 'es2022',
    sourcemap: true,
    // zod's first object schema probes eval unless jitless mode is set, so boot/strict-csp must
    // run before any module that builds a schema. zod and the set-up share one chunk, which every
    // chunk holding schemas imports (they import zod), so it runs first wherever they land. The
    // page does not use strictExecutionOrder: its wrapper around every module cost 11 KB gzip of
    // the script loaded before first paint. Workers keep it (see `worker` above).
    rolldownOptions: { output: { codeSplitting: { groups: [BOOT_CHUNK] } } },
  },
  server: { port: 5173 },
  preview: { port: Number(process.env.PORT ?? 4173), strictPort: true },
});
