import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { configureForStrictCsp } from '../../../src/boot/strict-csp';

function createViolation(directive: string, blockedURI: string): Event {
  return Object.assign(new Event('securitypolicyviolation'), {
    effectiveDirective: directive,
    blockedURI,
  });
}

describe('strict CSP set-up', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('puts zod in jitless mode so it never probes eval', () => {
    z.config({ jitless: false });
    configureForStrictCsp(new EventTarget());
    expect(z.config().jitless).toBe(true);
  });

  it('logs every violation where a test or a bug report can see it', () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const scope = new EventTarget();
    configureForStrictCsp(scope);
    scope.dispatchEvent(createViolation('img-src', 'https://attacker.example/pixel.png'));
    scope.dispatchEvent(createViolation('script-src-elem', ''));
    expect(errors.mock.calls).toEqual([
      ['Content Security Policy violation: img-src blocked https://attacker.example/pixel.png'],
      ['Content Security Policy violation: script-src-elem blocked inline'],
    ]);
  });
});
