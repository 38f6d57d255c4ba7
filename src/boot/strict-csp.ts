import { z } from 'zod';

/**
 * Side-effect module, imported first by every entry point (main.ts and each worker) so that
 * nothing runs before it.
 *
 * 1. Under the production CSP (`script-src` without 'unsafe-eval') zod 4's first object parse
 *    probes `new Function('')` to decide whether to compile fast parsers; the probe is caught,
 *    but Chromium still reports a violation. Jitless mode skips the probe; parsing is unchanged.
 * 2. Every violation is logged with console.error, in the page and in workers alike, so a
 *    blocked resource is visible in bug reports and the e2e suite fails on it (workers have no
 *    other channel a test can observe).
 */
export function configureForStrictCsp(
  scope: Pick<typeof globalThis, 'addEventListener'> = globalThis,
): void {
  z.config({ jitless: true });
  // Node (unit tests importing a module that imports this one) has no addEventListener.
  if (typeof scope.addEventListener !== 'function') return;
  scope.addEventListener('securitypolicyviolation', (event: Event) => {
    const directive =
      'effectiveDirective' in event && typeof event.effectiveDirective === 'string'
        ? event.effectiveDirective
        : '?';
    const blocked =
      'blockedURI' in event && typeof event.blockedURI === 'string' ? event.blockedURI : '';
    console.error(`Content Security Policy violation: ${directive} blocked ${blocked || 'inline'}`);
  });
}

configureForStrictCsp();
