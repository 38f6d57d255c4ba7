import katex from 'katex';
import 'katex/dist/katex.min.css';

/**
 * KaTeX and its stylesheet: one lazy chunk, imported by markdown-math.ts only once an answer has
 * math, so a visit without math never downloads them (about 70 KB gzip of script).
 */

/** KaTeX output, or the source in a marked-up span when it does not parse. */
export function renderMath(tex: string, isDisplay: boolean): string {
  return katex.renderToString(tex, {
    displayMode: isDisplay,
    throwOnError: false,
    // \href and \url could smuggle links past the link policy.
    trust: false,
    strict: 'ignore',
    output: 'htmlAndMathml',
  });
}
