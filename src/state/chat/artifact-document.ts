/**
 * What the artifact panel makes of an artifact: the preview frame's document and the download's
 * file name. Apart from artifacts.ts (which the chat screen uses to find artifacts), so it loads
 * with the panel.
 */
import type { Artifact, ArtifactKind } from './artifacts';

/**
 * The policy of the preview frame's own document: nothing may load from anywhere (no network),
 * inline styles and data: images may. The frame also inherits the app's policy, and its sandbox
 * withholds scripts and the app's origin, so a preview reads no storage and runs no code.
 */
export const ARTIFACT_FRAME_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:";

/** The `srcdoc` of the preview frame: the policy first, then the artifact's markup. */
export function buildArtifactDocument(kind: 'html' | 'svg', markup: string): string {
  const head = `<!doctype html><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${ARTIFACT_FRAME_CSP}">`;
  if (kind === 'html') return `${head}\n${markup}`;
  return `${head}<style>html,body{margin:0;height:100%;display:flex;align-items:center;justify-content:center;background:#fff}svg{max-width:100%;max-height:100%;height:auto}</style>\n${markup}`;
}

const FILE_TYPES: Readonly<Record<ArtifactKind, { extension: string; mimeType: string }>> = {
  html: { extension: 'html', mimeType: 'text/html' },
  svg: { extension: 'svg', mimeType: 'image/svg+xml' },
  mermaid: { extension: 'mmd', mimeType: 'text/plain' },
};

/** "price-table-v2.html": the download's file name and type. */
export function artifactFile(artifact: Artifact, versionIndex: number): { name: string; mimeType: string } {
  const { extension, mimeType } = FILE_TYPES[artifact.kind];
  const slug =
    artifact.title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'artifact';
  const suffix = artifact.versions.length > 1 ? `-v${String(versionIndex + 1)}` : '';
  return { name: `${slug}${suffix}.${extension}`, mimeType };
}
