import { describe, expect, it } from 'vitest';
import { artifactFile, buildArtifactDocument } from '../../../../src/state/chat/artifact-document';
import {
  artifactTitle,
  collectArtifacts,
  findArtifactVersion,
  findFencedBlocks,
} from '../../../../src/state/chat/artifacts';

const fence = (language: string, code: string): string => ['```' + language, code, '```'].join('\n');

describe('artifacts', () => {
  it('finds fenced blocks with their language, an unclosed one included', () => {
    const text = `Intro\n${fence('html', '<p>a</p>')}\n~~~svg\n<svg></svg>\n~~~\n\`\`\`mermaid\ngraph TD`;
    expect(findFencedBlocks(text)).toEqual([
      { language: 'html', code: '<p>a</p>' },
      { language: 'svg', code: '<svg></svg>' },
      { language: 'mermaid', code: 'graph TD' },
    ]);
  });

  it('titles an artifact by its own title, else its first line', () => {
    expect(artifactTitle('html', '<html><head><title> Prices </title></head></html>')).toBe('Prices');
    expect(artifactTitle('mermaid', '---\ntitle: Sign-up flow\n---\nflowchart LR')).toBe('Sign-up flow');
    expect(artifactTitle('svg', '\n<svg viewBox="0 0 1 1">\n</svg>')).toBe('<svg viewBox="0 0 1 1">');
  });

  it('makes a later block with the same kind and title a new version, others separate artifacts', () => {
    const page = (title: string, body: string): string => fence('html', `<title>${title}</title><p>${body}</p>`);
    const artifacts = collectArtifacts([
      { messageId: 'a1', text: `${page('Prices', 'one')}\n${fence('js', 'let x')}` },
      { messageId: 'a2', text: `${page('Prices', 'two')}\n${page('Other', 'x')}\n${page('Prices', 'two')}` },
    ]);
    expect(artifacts.map((artifact) => [artifact.title, artifact.versions.map((version) => version.messageId)])).toEqual([
      ['Prices', ['a1', 'a2']],
      ['Other', ['a2']],
    ]);
    const found = findArtifactVersion(artifacts, 'html', '<title>Prices</title><p>one</p>\n');
    expect(found?.versionIndex).toBe(0);
    expect(artifactFile(artifacts[0]!, 1)).toEqual({ name: 'prices-v2.html', mimeType: 'text/html' });
  });

  it('puts the no-network policy before the artifact markup', () => {
    const document = buildArtifactDocument('html', '<meta http-equiv="Content-Security-Policy" content="default-src *"><p>x</p>');
    expect(document.indexOf("default-src 'none'")).toBeLessThan(document.indexOf('default-src *'));
  });
});
