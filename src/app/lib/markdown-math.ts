import type { Env, MarkdownIt, StateBlock, StateInline } from 'markdown-it';

/**
 * Math rendered by KaTeX, in both notations models write: `$…$` or `\(…\)` inline, and `$$…$$`
 * or `\[…\]` for display. No maintained markdown-it math plugin is installed, so these are small
 * parser rules. An inline `$` only opens math when the next character is not a space and the
 * closing `$` is not preceded by one and not followed by a digit, so prices such as "$5 and $10"
 * stay text. A `\(` or `\[` without its closing pair is an escaped bracket, as markdown has it.
 *
 * KaTeX is a lazy chunk (math-katex.ts): until `loadMath()` has resolved, math renders as its TeX
 * source in a `.math-pending` element and the render sets `env.hasPendingMath`, so the caller can
 * load KaTeX and render again.
 */

export interface MathEnv {
  /** Set by a render that met math before KaTeX had loaded. */
  hasPendingMath?: boolean;
}

type MathRenderer = (tex: string, isDisplay: boolean) => string;

let katexRenderer: MathRenderer | null = null;
let katexLoad: Promise<void> | null = null;

/** Loads KaTeX (script and stylesheet) once; later renders draw math with it. */
export function loadMath(): Promise<void> {
  katexLoad ??= import('./math-katex').then((module) => {
    katexRenderer = module.renderMath;
  });
  return katexLoad;
}

const DOLLAR = 0x24;
const BACKSLASH = 0x5c;

/** The display-math fences a block may open with, each with the fence that closes it. */
const BLOCK_FENCES: ReadonlyArray<readonly [open: string, close: string]> = [
  ['$$', '$$'],
  ['\\[', '\\]'],
];

/** Inline `\(…\)` and `\[…\]`: the closing pair of each opening one. */
const BRACKET_CLOSES: Readonly<Record<string, { close: string; isDisplay: boolean }>> = {
  '(': { close: '\\)', isDisplay: false },
  '[': { close: '\\]', isDisplay: true },
};

function isSpace(code: number | undefined): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a;
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 0x30 && code <= 0x39;
}

/** Finds the `$` that closes inline math opened at `start`, or -1. */
function findInlineClose(src: string, start: number, max: number): number {
  for (let i = start + 1; i < max; i++) {
    const code = src.charCodeAt(i);
    if (code === BACKSLASH) {
      i++;
      continue;
    }
    if (code !== DOLLAR) continue;
    if (isSpace(src.charCodeAt(i - 1)) || isDigit(src.charCodeAt(i + 1))) return -1;
    return i;
  }
  return -1;
}

function parseInlineMath(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== DOLLAR) return false;
  // `$$` inside a paragraph is display math written inline.
  const isDisplay = src.charCodeAt(pos + 1) === DOLLAR;
  if (isDisplay) {
    const close = src.indexOf('$$', pos + 2);
    if (close < 0 || close > posMax - 2 || close === pos + 2) return false;
    if (!silent) {
      const token = state.push('math_display', 'math', 0);
      token.content = src.slice(pos + 2, close);
    }
    state.pos = close + 2;
    return true;
  }
  if (isSpace(src.charCodeAt(pos + 1)) || pos + 1 >= posMax) return false;
  const close = findInlineClose(src, pos, posMax);
  if (close < 0) return false;
  if (!silent) {
    const token = state.push('math_inline', 'math', 0);
    token.content = src.slice(pos + 1, close);
  }
  state.pos = close + 1;
  return true;
}

/** `\(…\)` or `\[…\]` within a paragraph. */
function parseBracketMath(state: StateInline, silent: boolean): boolean {
  const { src, pos, posMax } = state;
  if (src.charCodeAt(pos) !== BACKSLASH) return false;
  const bracket = BRACKET_CLOSES[src.charAt(pos + 1)];
  if (bracket === undefined) return false;
  const close = src.indexOf(bracket.close, pos + 2);
  if (close < 0 || close > posMax - 2 || src.slice(pos + 2, close).trim() === '') return false;
  if (!silent) {
    const token = state.push(bracket.isDisplay ? 'math_display' : 'math_inline', 'math', 0);
    token.content = src.slice(pos + 2, close);
  }
  state.pos = close + 2;
  return true;
}

function parseBlockMath(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  let pos = (state.bMarks[startLine] ?? 0) + (state.tShift[startLine] ?? 0);
  let max = state.eMarks[startLine] ?? 0;
  const fence = BLOCK_FENCES.find(([open]) => state.src.startsWith(open, pos));
  if (fence === undefined || pos + 2 > max) return false;
  const [open, closing] = fence;
  pos += open.length;
  let firstLine = state.src.slice(pos, max);
  let lastLine = '';
  let nextLine = startLine;
  let isFound = false;
  if (firstLine.trim().endsWith(closing)) {
    // One line: $$ x $$
    firstLine = firstLine.trim().slice(0, -closing.length);
    isFound = true;
  }
  if (silent) return true;
  while (!isFound) {
    nextLine++;
    if (nextLine >= endLine) break;
    pos = (state.bMarks[nextLine] ?? 0) + (state.tShift[nextLine] ?? 0);
    max = state.eMarks[nextLine] ?? 0;
    const line = state.src.slice(pos, max);
    if (line.trim().endsWith(closing)) {
      lastLine = line.trim().slice(0, -closing.length);
      isFound = true;
    }
  }
  // An unclosed block (an answer still streaming) is left to the paragraph rule.
  if (!isFound) return false;
  state.line = nextLine + 1;
  const token = state.push('math_block', 'math', 0);
  token.block = true;
  token.content = [
    firstLine,
    nextLine > startLine + 1 ? state.getLines(startLine + 1, nextLine, state.tShift[startLine] ?? 0, true) : '',
    lastLine,
  ]
    .filter((part) => part.trim().length > 0)
    .join('\n');
  token.map = [startLine, state.line];
  token.markup = open;
  return true;
}

export function installMath(md: MarkdownIt): void {
  const renderMath = (tex: string, isDisplay: boolean, env: Env | undefined): string => {
    if (katexRenderer) return katexRenderer(tex, isDisplay);
    if (env !== undefined) (env as MathEnv).hasPendingMath = true;
    return `<span class="math-pending">${md.utils.escapeHtml(tex)}</span>`;
  };
  // Before `escape`, which would otherwise read `\(` as an escaped parenthesis.
  md.inline.ruler.before('escape', 'math_bracket', parseBracketMath);
  md.inline.ruler.after('escape', 'math_inline', parseInlineMath);
  md.block.ruler.after('blockquote', 'math_block', parseBlockMath, {
    alt: ['paragraph', 'reference', 'blockquote', 'list'],
  });
  md.renderer.rules['math_inline'] = (tokens, index, _options, env) =>
    renderMath(tokens[index]?.content ?? '', false, env);
  md.renderer.rules['math_display'] = (tokens, index, _options, env) =>
    `<span class="math-display">${renderMath(tokens[index]?.content ?? '', true, env)}</span>`;
  md.renderer.rules['math_block'] = (tokens, index, _options, env) =>
    `<div class="math-block">${renderMath(tokens[index]?.content ?? '', true, env)}</div>\n`;
}
