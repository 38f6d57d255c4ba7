import { describe, expect, it } from 'vitest';
import { selectProjectTools } from '../../../../../src/core/agent/tools/project-tools';
import { createEmitter } from '../../../../../src/core/agent/emitter';
import { executeToolCalls } from '../../../../../src/core/agent/execute-tool-calls';
import { StateContainer } from '../../../../../src/core/agent/state-container';
import {
  createReadFileTool,
  READ_WINDOW_CHARS,
} from '../../../../../src/core/agent/tools/read-file.tool';
import {
  createSearchProjectTool,
  SEARCH_PROJECT_TOOL_NAME,
} from '../../../../../src/core/agent/tools/search-project.tool';
import { toToolDefinition, type Tool } from '../../../../../src/core/agent/tools/tool';
import { renderNumberedDocuments } from '../../../../../src/core/context';
import { asFileId, asProjectId } from '../../../../../src/core/model';
import { createProjectSearch } from '../../../../../src/workers/embedding/project-search';
import { createProjectFileReader } from '../../../../../src/workers/agent/project-files';
import { createRagStores, fixtureInput, ingestAll, PROJECT } from '../../../workers/rag-stores';

async function buildProject() {
  const stores = await createRagStores();
  const outcomes = await ingestAll(
    stores,
    PROJECT,
    [
      fixtureInput('report.pdf'),
      fixtureInput('minutes.docx'),
      fixtureInput('article.html'),
      fixtureInput('scanned.pdf'),
    ],
    () => undefined,
  );
  const ids = outcomes.map((outcome) =>
    outcome.kind === 'stored' ? outcome.fileId : asFileId('missing'),
  );
  const search = createProjectSearch({ ...stores, loadEmbedder: () => Promise.resolve(null) });
  const tools: Tool[] = [
    createSearchProjectTool({ projectId: PROJECT, search }),
    createReadFileTool({ projectId: PROJECT, reader: createProjectFileReader(stores.files) }),
  ];
  return { stores, ids, tools: new Map(tools.map((tool) => [tool.name, tool])) };
}

/** Runs tool calls the way the agent loop does: parsing, numbering, documents JSON. */
async function runCalls(
  tools: ReadonlyMap<string, Tool>,
  calls: Array<{ name: string; args: unknown }>,
  nextDocumentNumber = 1,
) {
  const state = new StateContainer(0);
  const executed = await executeToolCalls(
    calls.map((call, i) => ({
      id: `call-${i}`,
      name: call.name,
      argumentsText: JSON.stringify(call.args),
    })),
    tools,
    {
      signal: new AbortController().signal,
      nextDocumentNumber,
      tokens: { count: (text) => Math.ceil(text.length / 4) },
      emitter: createEmitter(0, () => undefined),
      state,
      turnIndex: 0,
      renderDocuments: renderNumberedDocuments,
    },
  );
  return executed;
}

describe('search_project', () => {
  it('declares a queries array for the model and counts as a search', async () => {
    const { tools } = await buildProject();
    const tool = tools.get(SEARCH_PROJECT_TOOL_NAME) as Tool;
    expect(tool.isSearch).toBe(true);
    expect(toToolDefinition(tool).inputSchema).toMatchObject({
      type: 'object',
      required: ['queries'],
      properties: { queries: { type: 'array', maxItems: 5 } },
    });
  });

  it('returns numbered passages in the documents JSON with file, page and character range', async () => {
    const { tools, ids } = await buildProject();
    const executed = await runCalls(
      tools,
      [{ name: 'search_project', args: { queries: ['Lisbon office opening', 'migration guide'] } }],
      3,
    );
    const result = executed.calls[0]?.result;
    expect(executed.hasSearchRun).toBe(true);
    expect(
      result?.content.startsWith(
        '{"documents": [\n{"document":3,"title":"report.pdf","metadata":"p. 3 · chars',
      ),
    ).toBe(true);
    expect(result?.documents?.[0]).toMatchObject({
      number: 3,
      title: 'report.pdf',
      fileId: ids[0],
      location: expect.stringMatching(/^p\. 3 · chars \d+–\d+$/) as unknown,
    });
    expect(result?.documents?.map((doc) => doc.title)).toContain('minutes.docx');
    expect(executed.nextDocumentNumber).toBe(3 + (result?.documents?.length ?? 0));
  });

  it('tells the model when nothing matched instead of returning an empty list', async () => {
    const { tools } = await buildProject();
    const executed = await runCalls(tools, [
      { name: 'search_project', args: { queries: ['zeppelin'] } },
    ]);
    expect(executed.calls[0]?.result).toMatchObject({
      isError: false,
      content: expect.stringContaining(
        'No passage of the project files matched "zeppelin"',
      ) as unknown,
    });
  });

  it('turns malformed arguments into an error the model can read', async () => {
    const { tools } = await buildProject();
    const executed = await runCalls(tools, [{ name: 'search_project', args: { queries: [] } }]);
    expect(executed.calls[0]).toMatchObject({
      status: 'error',
      result: {
        content: expect.stringContaining(
          'Invalid arguments for search_project: queries',
        ) as unknown,
      },
    });
  });
});

describe('read_file', () => {
  it('reads the text around a search hit and gives it a citable location', async () => {
    const { tools, stores, ids } = await buildProject();
    const search = await runCalls(tools, [
      { name: 'search_project', args: { queries: ['warehouse in Lyon'] } },
    ]);
    const hit = search.calls[0]?.result?.documents?.[0];
    const read = await runCalls(
      tools,
      [{ name: 'read_file', args: { file_id: hit?.fileId, location: hit?.location } }],
      2,
    );
    const result = read.calls[0]?.result;
    const text = (await stores.files.get(ids[0] as ReturnType<typeof asFileId>))?.text ?? '';
    expect(result?.documents?.[0]).toMatchObject({
      number: 2,
      title: 'report.pdf',
      location: `p. 1 · chars 0–${text.length}`,
    });
    expect(result?.content).toContain(
      'Shipping costs fell after the new warehouse in Lyon opened.',
    );
    expect(result?.content).toContain('This is the end of the file.');
  });

  it('reads a PDF page from its start and a long file in windows', async () => {
    const { tools, ids, stores } = await buildProject();
    const page = await runCalls(tools, [{ name: 'read_file', args: { file_id: ids[0], page: 3 } }]);
    expect(page.calls[0]?.result?.documents?.[0]?.location).toMatch(/^p\. 3 · chars /);
    expect(page.calls[0]?.result?.content).not.toContain('Lyon');

    const [long] = await ingestAll(
      stores,
      PROJECT,
      [{ name: 'long.txt', mimeType: 'text/plain', blob: new Blob(['word '.repeat(5000)]) }],
      () => undefined,
    );
    const longId = long?.kind === 'stored' ? long.fileId : '';
    const first = await runCalls(tools, [{ name: 'read_file', args: { file_id: longId } }]);
    const metadata = first.calls[0]?.result?.content ?? '';
    const next = Number(/Continue with start_char (\d+)/.exec(metadata)?.[1]);
    expect(next).toBeGreaterThan(READ_WINDOW_CHARS - 10);
    const second = await runCalls(tools, [
      { name: 'read_file', args: { file_id: longId, start_char: next } },
    ]);
    expect(second.calls[0]?.result?.documents?.[0]?.location).toMatch(
      new RegExp(`^chars ${next}–\\d+$`),
    );
    expect(second.calls[0]?.result?.content).toContain('characters');
  });

  it('explains an unreadable file and refuses files of other projects', async () => {
    const { tools, ids, stores } = await buildProject();
    const scanned = await runCalls(tools, [{ name: 'read_file', args: { file_id: ids[3] } }]);
    expect(scanned.calls[0]).toMatchObject({
      status: 'error',
      result: {
        content: 'No text could be extracted from "scanned.pdf" (it may be a scan or empty).',
      },
    });

    const [elsewhere] = await ingestAll(
      stores,
      asProjectId('other'),
      [fixtureInput('retry.ts')],
      () => undefined,
    );
    const otherId = elsewhere?.kind === 'stored' ? elsewhere.fileId : '';
    const refused = await runCalls(tools, [{ name: 'read_file', args: { file_id: otherId } }]);
    expect(refused.calls[0]?.result?.content).toContain(
      `There is no file with id "${otherId}" here`,
    );
  });
});

describe('selectProjectTools', () => {
  it('offers search_project and read_file in search mode, read_file alone otherwise', async () => {
    const stores = await createRagStores();
    const search = createProjectSearch({ ...stores, loadEmbedder: () => Promise.resolve(null) });
    const reader = createProjectFileReader(stores.files);
    const names = (mode: 'inline' | 'search' | null, projectId: typeof PROJECT | null = PROJECT) =>
      selectProjectTools({ projectId, mode, search, reader }).map((tool) => tool.name);
    expect(names('search')).toEqual(['search_project', 'read_file']);
    expect(names('inline')).toEqual(['read_file']);
    expect(names(null, null)).toEqual(['read_file']);
  });
});
