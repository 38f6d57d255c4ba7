// Access to the shared provider fixtures: the error-body catalogues (read once at startup)
// and the recorded streams that replay scenarios serve, framed per the fixtures README.

import { readFile, readdir } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataFrame, eventFrame, isRecord } from './protocols/wire';

export interface ErrorEntry {
  id: string;
  status: number;
  transport: string;
  body: string;
}

export interface ReplayBody {
  contentType: string;
  bytes: Buffer;
}

export interface Fixtures {
  dir: string;
  errorEntry(id: string): ErrorEntry;
  readReplay(file: string): Promise<ReplayBody>;
}

const CATALOGUE_SUFFIX = '-error-bodies.json';

/** The recorded streams and error bodies the repository ships (test/fixtures/providers). */
export const PROVIDER_FIXTURES_DIR = fileURLToPath(
  new URL('../fixtures/providers', import.meta.url),
);

/** opts.fixturesDir, else the fixtures in the repository. */
export function resolveFixturesDir(explicitDir?: string): string {
  return explicitDir === undefined ? PROVIDER_FIXTURES_DIR : resolve(explicitDir);
}

async function readEntryBody(
  dir: string,
  entry: Record<string, unknown>,
): Promise<string | undefined> {
  if (typeof entry.body === 'string') return entry.body;
  // Large bodies live in their own file (e.g. gemini-429-resource-exhausted).
  if (typeof entry.body_file === 'string')
    return readFile(join(dir, basename(entry.body_file)), 'utf8');
  return undefined;
}

async function readCatalogue(dir: string, file: string): Promise<ErrorEntry[]> {
  const parsed: unknown = JSON.parse(await readFile(join(dir, file), 'utf8'));
  const errors = isRecord(parsed) && Array.isArray(parsed.errors) ? parsed.errors : [];
  const entries: ErrorEntry[] = [];
  for (const entry of errors) {
    if (!isRecord(entry) || typeof entry.id !== 'string' || typeof entry.status !== 'number')
      continue;
    const body = await readEntryBody(dir, entry);
    if (body === undefined) continue;
    const transport = typeof entry.transport === 'string' ? entry.transport : 'http-body';
    entries.push({ id: entry.id, status: entry.status, transport, body });
  }
  return entries;
}

async function loadErrorCatalogue(dir: string): Promise<Map<string, ErrorEntry>> {
  let files: string[];
  try {
    files = (await readdir(dir)).filter((file) => file.endsWith(CATALOGUE_SUFFIX));
  } catch (cause) {
    throw new Error(`mock-llm: cannot read the provider fixtures dir ${dir}`, { cause });
  }
  if (files.length === 0) throw new Error(`mock-llm: no *${CATALOGUE_SUFFIX} files in ${dir}`);
  const byId = new Map<string, ErrorEntry>();
  for (const file of files.sort()) {
    for (const entry of await readCatalogue(dir, file)) byId.set(entry.id, entry);
  }
  return byId;
}

// ---------------------------------------------------------------------------------------
// Replay framing (fixtures README, "Replay rules")

type ChunkFraming = 'openai' | 'named-events' | 'gemini';

/** The provider is encoded in the file name prefix. */
function chunkFramingOf(file: string): ChunkFraming {
  if (file.startsWith('anthropic-') || file.startsWith('openai-responses-')) return 'named-events';
  if (file.startsWith('gemini-')) return 'gemini';
  return 'openai';
}

function eventTypeOf(line: string): string {
  const parsed: unknown = JSON.parse(line);
  return isRecord(parsed) && typeof parsed.type === 'string' ? parsed.type : 'message';
}

export function frameChunkLines(file: string, text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line !== '');
  switch (chunkFramingOf(file)) {
    case 'named-events':
      return lines.map((line) => eventFrame(eventTypeOf(line), line)).join('');
    case 'gemini':
      return lines.map((line) => dataFrame(line, '\r\n')).join('');
    case 'openai':
      return lines.map((line) => dataFrame(line)).join('') + dataFrame('[DONE]');
  }
}

async function readReplayFile(dir: string, file: string): Promise<ReplayBody> {
  // Only names inside the fixtures dir: a scenario may arrive over HTTP.
  if (basename(file) !== file)
    throw new Error(`mock-llm: replay file must be a bare file name: ${file}`);
  const bytes = await readFile(join(dir, file));
  if (file.endsWith('.chunks.txt')) {
    const framed = frameChunkLines(file, bytes.toString('utf8'));
    return { contentType: 'text/event-stream; charset=utf-8', bytes: Buffer.from(framed, 'utf8') };
  }
  if (file.endsWith('.json')) return { contentType: 'application/json', bytes };
  return { contentType: 'text/event-stream; charset=utf-8', bytes };
}

export async function loadFixtures(explicitDir?: string): Promise<Fixtures> {
  const dir = resolveFixturesDir(explicitDir);
  const catalogue = await loadErrorCatalogue(dir);
  return {
    dir,
    errorEntry(id) {
      const entry = catalogue.get(id);
      if (entry === undefined) throw new Error(`mock-llm: unknown error id ${id}`);
      return entry;
    },
    readReplay: (file) => readReplayFile(dir, file),
  };
}
