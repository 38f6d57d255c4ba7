import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defaultClientConditions, defineConfig, type Plugin } from 'vite';
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
 * Largest single file the service worker precaches. ONNX Runtime's WebAssembly builds and the
 * biggest gpt-tokenizer rank chunks are several MB each; Workbox's 2 MiB default would silently
 * leave them out and embeddings or token counts would then fail offline.
 */
export const MAX_PRECACHE_FILE_BYTES = 48 * 1024 * 1024;

/** What the build emits that the app may load later: the shell, lazy chunks, workers, WASM, icons. */
export const PRECACHE_GLOB_PATTERNS: readonly string[] = [
  '**/*.{html,js,mjs,css,wasm,json,webmanifest,svg,png,ico,woff,woff2,txt}',
];

export const THEME_COLOUR = '#1f2933';
export const BACKGROUND_COLOUR = '#14181d';

/**
 * vite-plugin-pwa options. Deliberately no `runtimeCaching`: the service worker answers only
 * precached same-origin URLs (and navigations with index.html); every other request, including
 * every provider call and anything carrying an Authorization / x-api-key / x-goog-api-key header,
 * goes to the network untouched and is never stored.
 */
export function createPwaOptions(): Partial<VitePWAOptions> {
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
      // The WebGPU build's WebAssembly (27 MB) is fetched only by browsers with WebGPU, on first use.
      globIgnores: ['**/*.map', '**/_headers', '**/ort-wasm-simd-threaded.asyncify*'],
      maximumFileSizeToCacheInBytes: MAX_PRECACHE_FILE_BYTES,
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

export default defineConfig({
  plugins: [svelte(), VitePWA(createPwaOptions()), serveSecurityHeaders()],
  resolve: ORT_RESOLVE,
  worker: { format: 'es' },
  build: {
    target: 'es2022',
    sourcemap: true,
    // Modules run in the order they are imported, whichever chunk they land in: each entry's
    // first import (boot/strict-csp) must run before any other module parses with zod, and
    // without this a shared chunk holding zod and schemas runs before the entry's own code.
    rolldownOptions: { output: { strictExecutionOrder: true } },
  },
  server: { port: 5173 },
  preview: { port: Number(process.env.PORT ?? 4173), strictPort: true },
});
