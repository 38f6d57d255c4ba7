import { createRandom } from './stats';
import { createCode, createProse } from './synthetic-text';

/**
 * Deterministic Markdown shaped like a model's answer: headings, paragraphs with inline code,
 * emphasis and links, bullet and numbered lists, fenced code blocks, tables and quotes. Blocks
 * are separated by one blank line, as models write them.
 */

function createHeading(random: () => number): string {
  return `${random() < 0.5 ? '##' : '###'} ${createProse(random, 3 + Math.floor(random() * 4))}`;
}

function createParagraph(random: () => number): string {
  const sentence = createProse(random, 30 + Math.floor(random() * 70));
  const words = sentence.split(' ');
  // Decorate a few words: inline code, bold, a link.
  for (let index = 3; index < words.length; index += 11 + Math.floor(random() * 9)) {
    const word = words[index] as string;
    const style = Math.floor(random() * 3);
    words[index] =
      style === 0
        ? `\`${word}()\``
        : style === 1
          ? `**${word}**`
          : `[${word}](https://example.com/${word})`;
  }
  return words.join(' ');
}

function createList(random: () => number): string {
  const isOrdered = random() < 0.4;
  const count = 3 + Math.floor(random() * 4);
  return Array.from(
    { length: count },
    (_, index) =>
      `${isOrdered ? `${index + 1}.` : '-'} ${createProse(random, 6 + Math.floor(random() * 14))}`,
  ).join('\n');
}

function createTable(random: () => number): string {
  const rows = 3 + Math.floor(random() * 4);
  const lines = ['| setting | value | note |', '|---|---:|---|'];
  for (let index = 0; index < rows; index++)
    lines.push(
      `| ${createProse(random, 2)} | ${Math.floor(random() * 10_000)} | ${createProse(random, 5)} |`,
    );
  return lines.join('\n');
}

function createFence(random: () => number): string {
  return '```ts\n' + createCode(random, 6 + Math.floor(random() * 18)) + '\n```';
}

function createQuote(random: () => number): string {
  return `> ${createProse(random, 15 + Math.floor(random() * 20))}`;
}

const BLOCK_MAKERS = [
  createParagraph,
  createParagraph,
  createList,
  createParagraph,
  createFence,
  createHeading,
  createParagraph,
  createTable,
  createParagraph,
  createQuote,
  createList,
  createFence,
];

/** At least `minChars` characters of Markdown, ending at a block boundary. */
export function createMarkdownAnswer(seed: number, minChars: number): string {
  const random = createRandom(seed);
  const blocks: string[] = [];
  let length = 0;
  for (let index = 0; length < minChars; index++) {
    const maker = BLOCK_MAKERS[index % BLOCK_MAKERS.length] as (random: () => number) => string;
    const block = maker(random);
    blocks.push(block);
    length += block.length + 2;
  }
  return blocks.join('\n\n');
}
