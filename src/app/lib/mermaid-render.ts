import type { Mermaid } from 'mermaid';

/**
 * Mermaid turns a diagram's text into SVG. It needs the page's DOM to measure text, so it runs
 * here in the app, loaded on the first diagram only (a dynamic import, chunks of its own); the
 * SVG it returns is then shown in the sandboxed preview frame like any other SVG.
 */

let loaded: Promise<Mermaid> | null = null;

function loadMermaid(): Promise<Mermaid> {
  loaded ??= import('mermaid').then((module) => {
    const mermaid = module.default;
    // 'strict' encodes HTML in labels and turns off click handlers in diagrams.
    mermaid.initialize({ startOnLoad: false, securityLevel: 'strict', theme: 'default' });
    return mermaid;
  });
  return loaded;
}

let renderCount = 0;

/** The diagram as SVG markup; rejects with Mermaid's own message when the text does not parse. */
export async function renderMermaidSvg(source: string): Promise<string> {
  const mermaid = await loadMermaid();
  renderCount += 1;
  const { svg } = await mermaid.render(`carrel-mermaid-${String(renderCount)}`, source);
  return svg;
}
