import { createRandom } from './stats';

/**
 * Deterministic prose and code, so token counts and BM25 rankings are the same on every run.
 * The vocabulary is varied enough that BPE caches do not see the same word stream over and over.
 */

const WORDS = (
  'the model reads every message before it answers a question about budgets and files while ' +
  'history keeps older turns within the context window so the user sees citations next to ' +
  'documents retrieval ranks chunks by keywords and vectors storage writes rows to indexeddb ' +
  'streaming renders markdown incrementally tokens arrive at a steady rate and the checkpointer ' +
  'saves partial answers once per second projects hold instructions notes meetings invoices ' +
  'bread oven recipe flour water salt yeast travel allowance hotel flight deadline router ' +
  'password security kernel compiler parser lexer schema migration benchmark latency throughput'
).split(' ');

const IDENTIFIERS = [
  'assembleContext',
  'tokenCount',
  'sessionId',
  'renderBlocks',
  'chunkText',
  'vectorIndex',
  'loadChain',
  'budget',
  'queue',
  'result',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

export function createProse(random: () => number, wordCount: number): string {
  const words: string[] = [];
  for (let index = 0; index < wordCount; index++) {
    let word = pick(random, WORDS);
    if (random() < 0.04) word = `${word}${Math.floor(random() * 1000)}`;
    if (index % 14 === 0) word = word.charAt(0).toUpperCase() + word.slice(1);
    words.push(word);
    if (index % 14 === 13) words[words.length - 1] += '.';
  }
  return words.join(' ');
}

export function createCode(random: () => number, lineCount: number): string {
  const lines: string[] = [];
  for (let index = 0; index < lineCount; index++) {
    const name = pick(random, IDENTIFIERS);
    const other = pick(random, IDENTIFIERS);
    const value = Math.floor(random() * 10_000);
    switch (index % 4) {
      case 0:
        lines.push(`export function ${name}${index}(${other}: number): number {`);
        break;
      case 1:
        lines.push(`  const ${other} = ${name}.get('${other}-${value}') ?? ${value};`);
        break;
      case 2:
        lines.push(`  if (${other} > ${value}) return ${other} * 2; // ${pick(random, WORDS)}`);
        break;
      default:
        lines.push(`  return ${other} + ${value};\n}`);
    }
  }
  return lines.join('\n');
}

/** About `bytes` characters of alternating prose paragraphs and fenced code blocks. */
export function createMixedText(seed: number, bytes: number): string {
  const random = createRandom(seed);
  const parts: string[] = [];
  let length = 0;
  while (length < bytes) {
    const part =
      parts.length % 3 === 2
        ? '```ts\n' + createCode(random, 8 + Math.floor(random() * 24)) + '\n```'
        : createProse(random, 40 + Math.floor(random() * 120));
    parts.push(part);
    length += part.length + 2;
  }
  return parts.join('\n\n').slice(0, bytes);
}

const SYLLABLES =
  'ka lo mi ne ru sa ti vo ze bra cle dri fo gu hal jen kor lun mor pes quin ret sul tor ven wil xan yor zum'.split(
    ' ',
  );
const ZIPF_VOCABULARY_SIZE = 20_000;

/** Word i of a made-up vocabulary: two to four syllables, unique per index. */
function createWord(index: number): string {
  let word = '';
  let rest = index;
  do {
    word += SYLLABLES[rest % SYLLABLES.length] as string;
    rest = Math.floor(rest / SYLLABLES.length);
  } while (rest > 0);
  return word.length < 4 ? word + 'n' : word;
}

/**
 * Prose over a 20,000-word vocabulary with Zipf-distributed frequencies, as natural text has:
 * a keyword index sees a few very common terms and a long tail of rare ones.
 */
export function createZipfProseSource(random: () => number): (wordCount: number) => string {
  const cumulative = new Float64Array(ZIPF_VOCABULARY_SIZE);
  let total = 0;
  for (let rank = 0; rank < ZIPF_VOCABULARY_SIZE; rank++) {
    total += 1 / (rank + 1);
    cumulative[rank] = total;
  }
  const words = Array.from({ length: ZIPF_VOCABULARY_SIZE }, (_, index) => createWord(index));
  const sample = (): string => {
    const target = random() * total;
    let low = 0;
    let high = ZIPF_VOCABULARY_SIZE - 1;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((cumulative[middle] as number) < target) low = middle + 1;
      else high = middle;
    }
    return words[low] as string;
  };
  return (wordCount) => Array.from({ length: wordCount }, sample).join(' ');
}
