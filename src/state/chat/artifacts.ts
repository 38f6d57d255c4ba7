import type { ChatItem } from './chat-items';

/**
 * Artifacts: the HTML, SVG and Mermaid code blocks of a chat's answers, which the artifact panel
 * previews. Pure, so the versioning rule is unit-tested.
 *
 * Versioning: a block is a new version of an earlier artifact when it has the same kind and the
 * same title. The title is the one the code gives itself (an HTML or SVG `<title>`, a Mermaid
 * `title:` line) or, without one, its first non-empty line. So a model that revises "<title>Price
 * table</title>" later in the chat adds version 2 of that artifact, while an unrelated page with
 * another title starts an artifact of its own.
 */

export type ArtifactKind = 'html' | 'svg' | 'mermaid';

export interface ArtifactVersion {
  /** The answer that holds this version. */
  messageId: string;
  code: string;
}

export interface Artifact {
  /** Kind and title: what makes later blocks versions of this one. */
  key: string;
  kind: ArtifactKind;
  title: string;
  /** Oldest first. */
  versions: ArtifactVersion[];
}

export interface ArtifactSource {
  messageId: string;
  text: string;
}

/** The fence languages each kind answers to (what models write after the backticks). */
const KIND_BY_LANGUAGE: Readonly<Record<string, ArtifactKind>> = {
  html: 'html',
  htm: 'html',
  xhtml: 'html',
  svg: 'svg',
  mermaid: 'mermaid',
  mmd: 'mermaid',
};

export function artifactKindOf(language: string | undefined): ArtifactKind | undefined {
  return language ? KIND_BY_LANGUAGE[language.toLowerCase()] : undefined;
}

export interface FencedBlock {
  language: string;
  code: string;
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)[^`]*$/;

/**
 * The fenced code blocks of a Markdown text, as CommonMark reads them: an opening fence of three
 * or more backticks or tildes, closed by a fence of the same character at least as long (or the
 * end of the text, as while an answer streams).
 */
export function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const lines = text.split('\n');
  let index = 0;
  while (index < lines.length) {
    const opening = FENCE_OPEN.exec(lines[index] ?? '');
    index += 1;
    if (!opening) continue;
    const fence = opening[1] ?? '```';
    const language = opening[2] ?? '';
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${String(fence.length)},}\\s*$`);
    const body: string[] = [];
    while (index < lines.length && !closing.test(lines[index] ?? '')) {
      body.push(lines[index] ?? '');
      index += 1;
    }
    index += 1;
    blocks.push({ language, code: body.join('\n') });
  }
  return blocks;
}

const TITLE_LENGTH = 80;

/** The title an artifact gives itself, else its first non-empty line. */
export function artifactTitle(kind: ArtifactKind, code: string): string {
  const own =
    kind === 'mermaid'
      ? /^\s*(?:title:?|accTitle:)\s*(.+)$/m.exec(code)?.[1]
      : /<title[^>]*>([^<]*)<\/title>/i.exec(code)?.[1];
  const title = own?.trim() || code.split('\n').find((line) => line.trim() !== '')?.trim() || 'Untitled';
  return title.length > TITLE_LENGTH ? `${title.slice(0, TITLE_LENGTH - 1)}…` : title;
}

/** Every artifact in the answers, in the order they first appear, each with its versions. */
export function collectArtifacts(answers: readonly ArtifactSource[]): Artifact[] {
  const byKey = new Map<string, Artifact>();
  for (const answer of answers) {
    for (const block of findFencedBlocks(answer.text)) {
      const kind = artifactKindOf(block.language);
      if (!kind || block.code.trim() === '') continue;
      const title = artifactTitle(kind, block.code);
      const key = `${kind}:${title}`;
      const artifact = byKey.get(key) ?? { key, kind, title, versions: [] };
      const last = artifact.versions.at(-1);
      // The same code repeated (quoted back, or shown twice in one answer) is not a revision.
      if (last?.code !== block.code) artifact.versions.push({ messageId: answer.messageId, code: block.code });
      byKey.set(key, artifact);
    }
  }
  return [...byKey.values()];
}

/** The artifact and version a code block on screen shows (the Preview button's target). */
export function findArtifactVersion(
  artifacts: readonly Artifact[],
  kind: ArtifactKind,
  code: string,
): { artifact: Artifact; versionIndex: number } | undefined {
  const wanted = code.replace(/\n$/, '');
  for (const artifact of artifacts) {
    if (artifact.kind !== kind) continue;
    const versionIndex = artifact.versions.findLastIndex((version) => version.code === wanted);
    if (versionIndex >= 0) return { artifact, versionIndex };
  }
  return undefined;
}

/** The text of every answer the chat shows, compared answers included, in chat order. */
export function artifactSourcesOf(items: readonly ChatItem[]): ArtifactSource[] {
  const answers = items.flatMap((item) =>
    item.kind === 'answer' ? [item.answer] : item.kind === 'compare' ? item.answers : [],
  );
  return answers.map((answer) => ({
    messageId: answer.messageId,
    text: answer.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : [])).join('\n\n'),
  }));
}
