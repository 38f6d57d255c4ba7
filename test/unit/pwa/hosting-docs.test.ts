import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CSP_DIRECTIVES, SECURITY_HEADERS, renderHeadersFile } from '../../../vite.config';

const hostingDocs = readFileSync(new URL('../../../docs/hosting.md', import.meta.url), 'utf8');

describe('security headers', () => {
  it('lets only same-origin scripts run: no inline scripts, no eval, WebAssembly allowed', () => {
    const scriptSrc = CSP_DIRECTIVES.find((directive) => directive.startsWith('script-src '));
    expect(scriptSrc).toBe("script-src 'self' 'wasm-unsafe-eval'");
  });

  it('allows no remote images, so an answer cannot exfiltrate data through an image URL', () => {
    const imgSrc = CSP_DIRECTIVES.find((directive) => directive.startsWith('img-src '));
    expect(imgSrc?.split(' ').slice(1)).toEqual(["'self'", 'data:', 'blob:']);
  });

  it('writes every header into the _headers file for static hosts', () => {
    const file = renderHeadersFile();
    expect(file.startsWith('/*\n')).toBe(true);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      expect(file).toContain(`\n  ${name}: ${value}\n`);
    }
  });

  it('docs/hosting.md documents exactly the headers the preview server sends', () => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
      expect(hostingDocs).toContain(`${name}: ${value}`);
      expect(hostingDocs).toContain(`add_header ${name} "${value}" always;`);
    }
  });
});
