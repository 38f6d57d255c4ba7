/**
 * Bench 3c: retrieval quality on a labelled set of real text (the SQLite C interface
 * documentation, test/fixtures/documents/sqlite-api): recall@10 and MRR@10 of Carrel's keyword,
 * vector and hybrid rankings and of MiniSearch and Orama set up as in bench 3b, on the same
 * chunks, vectors and questions. Deterministic: it needs no timing and no quiet machine.
 *
 *     npx tsx test/bench/retrieval-quality.bench.ts
 */
import {
  SQLITE_API_DIR,
  loadCorpusChunks,
  loadLabelledQuestions,
  type CorpusChunk,
} from '../unit/core/rag/corpus';
import { embedByHashing } from './lib/hashing-embedding';
import { createSection, emitSection } from './lib/report';
import { ENGINES, type SearchMode } from './lib/retrieval-peers';

/** Smaller than the app's 450 so that ten hits are a small share of the set (about 2%). */
const CHUNK_TOKENS = 128;
const K = 10;
const MODEL = 'hashing-384';

interface ModeQuality {
  recall: number;
  reciprocalRank: number;
  missed: string[];
}

async function main(): Promise<void> {
  const questions = loadLabelledQuestions(SQLITE_API_DIR);
  const chunks: CorpusChunk[] = loadCorpusChunks(SQLITE_API_DIR, CHUNK_TOKENS).map((chunk) => ({
    ...chunk,
    embedding: embedByHashing(chunk.text),
    embeddingModel: MODEL,
  }));
  const byId = new Map(chunks.map((chunk) => [chunk.id, chunk]));
  for (const { section } of questions) {
    if (!chunks.some((chunk) => chunk.headingPath.includes(section)))
      throw new Error(`No chunk lies under "${section}"`);
  }
  const queries = questions.map(({ query }) => ({ text: query, vector: embedByHashing(query) }));

  const section = createSection('retrieval-quality', '3c. Retrieval quality (recall@10)');
  const results: Array<{ label: string; mode: SearchMode; quality: ModeQuality }> = [];
  for (const spec of ENGINES) {
    const engine = await spec.build(chunks);
    for (const mode of engine.modes) {
      let found = 0;
      let reciprocalRanks = 0;
      const missed: string[] = [];
      questions.forEach((question, index) => {
        const top = engine.search(mode, queries[index] as (typeof queries)[number], K);
        const rank = top.findIndex(
          (id) => byId.get(id)?.headingPath.includes(question.section) === true,
        );
        if (rank >= 0) {
          found++;
          reciprocalRanks += 1 / (rank + 1);
        } else {
          missed.push(question.query);
        }
      });
      results.push({
        label: spec.label,
        mode,
        quality: {
          recall: found / questions.length,
          reciprocalRank: reciprocalRanks / questions.length,
          missed,
        },
      });
    }
  }
  const MODE_NAMES: Record<SearchMode, string> = {
    keyword: 'keyword (BM25 / full text)',
    vector: 'vector (hashing embedding)',
    hybrid: 'hybrid',
  };
  for (const { label, mode, quality } of results) {
    section.values.push({
      name: `${label} ${MODE_NAMES[mode]}: recall@10`,
      value: Number(quality.recall.toFixed(3)),
      unit: '',
    });
    section.values.push({
      name: `${label} ${MODE_NAMES[mode]}: MRR@10`,
      value: Number(quality.reciprocalRank.toFixed(3)),
      unit: '',
    });
  }
  const carrelMisses = results
    .filter(({ label }) => label === 'Carrel')
    .map(
      ({ mode, quality }) =>
        `${mode}: ${quality.missed.length === 0 ? 'none' : quality.missed.map((query) => `"${query}"`).join(', ')}`,
    );
  section.notes.push(
    `Set: ${chunks.length} chunks (${CHUNK_TOKENS}-token target, never across a heading) of 100 sections of the SQLite C interface documentation (public domain, from Debian's /usr/include/sqlite3.h; test/fixtures/documents/sqlite-api/README.md), ${questions.length} questions written in a user's words, each labelled with the one section that answers it. A question counts as found when a chunk of its section is among the top 10; MRR@10 is the mean of 1 / rank of the first such chunk (0 when none).`,
    "Vectors: a hashed bag of words and character trigrams (384 dimensions, test/bench/lib/hashing-embedding.ts), not a trained model. The tiny test model has random weights, so its vectors would only show that the plumbing works; the hashing embedding ranks real text by shared words and word pieces, which makes vector and hybrid recall mean something, but lexical overlap, not meaning: a real embedding model would find questions whose words differ from the text's, and these figures say nothing about that.",
    "Engines as in bench 3b: Carrel keyword = its BM25 index alone, vector = its vector index alone, hybrid = the project search (BM25 and cosine, reciprocal-rank fusion, at most 3 chunks per file: part of what it returns is chosen for spread over files); MiniSearch full text with Carrel's settings; Orama full text (prefix, no typo tolerance), vector (every row ranked) and hybrid with its own weighting, all over the same chunks and vectors.",
    `Questions Carrel missed — ${carrelMisses.join('; ')}.`,
  );
  await emitSection(section);
}

await main();
