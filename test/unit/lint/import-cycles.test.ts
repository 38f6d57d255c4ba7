import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname, '../../../src');
const EXTENSIONS = ['.ts', '.svelte'];

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listSources(path);
    return EXTENSIONS.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names, as Vite resolves it (extension optional, index files). */
function resolveImport(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier.replace(/\?.*$/, ''));
  const candidates = [base, `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile()) ?? null;
}

/** Every file each source imports (type-only imports and re-exports count: they bind the modules too). */
function importGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
      const targets = importedFiles
        .map((ref) => resolveImport(file, ref.fileName))
        .filter((path): path is string => path !== null);
      return [file, [...new Set(targets)]];
    }),
  );
}

/** The import circles of a graph, each as the files along it (Tarjan's strongly connected components). */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    const isSelfImport = (graph.get(node) ?? []).includes(node);
    if (component.length > 1 || isSelfImport) cycles.push(component.reverse());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

describe('imports in src/', () => {
  it('form no circle', () => {
    const cycles = findCycles(importGraph(listSources(SRC))).map((cycle) => cycle.map((file) => relative(SRC, file)));
    expect(cycles).toEqual([]);
  });

  it('a circle, even through a type-only import, is found', () => {
    const graph = new Map([
      ['a.api.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.api.ts']],
      ['d.ts', ['a.api.ts']],
    ]);
    expect(findCycles(graph)).toEqual([['a.api.ts', 'b.ts', 'c.ts']]);
    expect(findCycles(new Map([['a.ts', ['b.ts']], ['b.ts', []]]))).toEqual([]);
  });
});

/** Every file `start` reaches through its imports (type-only ones included). */
function reachableFrom(graph: ReadonlyMap<string, readonly string[]>, start: string): Set<string> {
  const seen = new Set<string>([start]);
  const queue = [start];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const next of graph.get(file) ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

describe('the settings registry', () => {
  it('does not load the URL address policy and its IP tables (ipaddr.js), which only the tools need', () => {
    const graph = importGraph(listSources(SRC));
    const policy = resolve(SRC, 'core/agent/tools/url-policy.ts');
    expect(graph.has(policy)).toBe(true);
    for (const entry of ['core/model/settings.ts', 'core/model/index.ts']) {
      expect(reachableFrom(graph, resolve(SRC, entry)).has(policy), entry).toBe(false);
    }
  });
});

/** The `<script>` blocks of a Svelte component, or the whole text of a TypeScript file. */
function scriptText(file: string): string {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.svelte')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((match) => match[1]).join('\n');
}

/**
 * The files each source loads as it runs: static imports and re-exports, not `import type`
 * (erased) and not `import()` (a chunk of its own, fetched on demand). An import whose names
 * are all `type` still loads its module (verbatimModuleSyntax keeps it), so it counts.
 */
function runtimeImportGraph(files: readonly string[]): Map<string, string[]> {
  return new Map(
    files.map((file) => {
      const source = ts.createSourceFile(file, scriptText(file), ts.ScriptTarget.Latest);
      const specifiers = source.statements.flatMap((statement) => {
        if (ts.isImportDeclaration(statement) && statement.importClause?.isTypeOnly !== true)
          return [statement.moduleSpecifier];
        if (ts.isExportDeclaration(statement) && !statement.isTypeOnly && statement.moduleSpecifier)
          return [statement.moduleSpecifier];
        return [];
      });
      const targets = specifiers
        .filter(ts.isStringLiteral)
        .map((specifier) => resolveImport(file, specifier.text))
        .filter((path): path is string => path !== null);
      return [file, [...new Set(targets)]];
    }),
  );
}

describe('the code loaded before first paint', () => {
  const graph = runtimeImportGraph(listSources(SRC));
  const startup = reachableFrom(graph, resolve(SRC, 'main.ts'));

  it('holds the first screen: the shell, the chat screen, the database', () => {
    for (const file of ['app/App.svelte', 'app/screens/ChatScreen.svelte', 'storage/db.ts', 'state/projects/new-chat-project.svelte.ts']) {
      expect(startup.has(resolve(SRC, file)), file).toBe(true);
    }
  });

  it('leaves out the state of screens and panels that are fetched when first shown', () => {
    const later = [
      // The project screen: uploads, project search, the embedding queue.
      'state/projects/projects.svelte.ts',
      // Settings: the embedding model's and the built-in model's sections.
      'state/settings/embedding-settings.svelte.ts',
      'state/settings/builtin-model.svelte.ts',
      // The file viewer, opened from a citation or the files panel.
      'state/projects/file-viewer.svelte.ts',
      // The providers' names, addresses and help (onboarding, the provider form).
      'core/model/provider-presets.ts',
      // The embedding worker's client and its models' list (the project screen, Settings).
      'workers/embedding/embedding.client.ts',
      // Sync's settings and form.
      'state/settings/sync.svelte.ts',
    ];
    for (const file of later) {
      expect(graph.has(resolve(SRC, file)), `${file} exists`).toBe(true);
      expect(startup.has(resolve(SRC, file)), file).toBe(false);
    }
  });

  it('counts a static import, not a type-only one or an import() call', () => {
    const graphOf = (text: string): string[] => {
      const dir = mkdtempSync(join(tmpdir(), 'startup-graph-'));
      for (const name of ['a', 'b', 'c', 'd']) writeFileSync(join(dir, `${name}.ts`), name === 'a' ? text : '');
      const targets = runtimeImportGraph([join(dir, 'a.ts')]).get(join(dir, 'a.ts')) ?? [];
      return targets.map((path) => relative(dir, path));
    };
    expect(graphOf("import type { B } from './b';\nconst c = () => import('./c');\nimport { type D } from './d';")).toEqual(['d.ts']);
    expect(graphOf("import { b } from './b';\nexport { c } from './c';\nexport type { D } from './d';")).toEqual(['b.ts', 'c.ts']);
  });
});
