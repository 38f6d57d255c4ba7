import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The layer rules of CONTRIBUTING.md are enforced by ESLint. These tests lint small sources as if
 * they lived in a layer's folder and check the rule fires, so a config change that silently
 * drops a rule fails here.
 */
const eslint = new ESLint({ cwd: process.cwd() });

async function restrictedImportMessages(source: string, filePath: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId === 'no-restricted-imports' || m.ruleId === 'no-restricted-globals' || m.ruleId === 'no-restricted-properties')
    .map((m) => m.message);
}

describe('layer rules', () => {
  // The first lint builds the TypeScript program behind the typed rules, which dominates the
  // file's time (over a minute on a busy 2-core machine); the tests after it take a second.
  beforeAll(async () => {
    await eslint.lintText('export {};\n', { filePath: 'src/core/ports.ts' });
  }, 240_000);

  it.each([
    { what: 'dexie', source: "import Dexie from 'dexie';\nexport const x = Dexie;\n" },
    { what: 'svelte', source: "import { mount } from 'svelte';\nexport const x = mount;\n" },
    { what: 'comlink', source: "import { wrap } from 'comlink';\nexport const x = wrap;\n" },
    { what: 'the AI SDK', source: "import { streamText } from 'ai';\nexport const x = streamText;\n" },
    { what: 'storage/', source: "import { openCarrelDb } from '../storage/db';\nexport const x = openCarrelDb;\n" },
  ])('refuses a core/ import of $what', async ({ source, what }) => {
    const messages = await restrictedImportMessages(source, 'src/core/ports.ts');
    expect(messages.length, `expected core/ to refuse ${what}`).toBeGreaterThan(0);
  }, 60_000);

  it('refuses globals that must be injected through ports in core/', async () => {
    const source = 'export const now = Date.now();\nexport const f = fetch;\n';
    const messages = await restrictedImportMessages(source, 'src/core/ports.ts');
    expect(messages.some((m) => m.includes('Clock'))).toBe(true);
    expect(messages.some((m) => m.includes('ports'))).toBe(true);
  }, 60_000);

  it('refuses Dexie in the UI layers but allows it in storage/', async () => {
    const source = "import { Dexie } from 'dexie';\nexport const x = Dexie;\n";
    expect(await restrictedImportMessages(source, 'src/state/chat/sessions.svelte.ts')).not.toHaveLength(0);
    expect(await restrictedImportMessages(source, 'src/storage/db.ts')).toHaveLength(0);
  }, 60_000);

  it('keeps the UI away from provider code and from storage internals', async () => {
    const state = 'src/state/settings/providers.svelte.ts';
    const fromLlm = "import { createLlmClient } from '../../llm/llm-client';\nexport const x = createLlmClient;\n";
    expect(await restrictedImportMessages(fromLlm, state)).not.toHaveLength(0);
    const fromInternals = "import { openCarrelDb } from '../../storage/db';\nexport const x = openCarrelDb;\n";
    expect(await restrictedImportMessages(fromInternals, state)).not.toHaveLength(0);
    const fromIndex = "import { estimateStorage } from '../../storage';\nimport { PROVIDER_PRESETS } from '../../core/model/provider-presets';\nexport const x = [estimateStorage, PROVIDER_PRESETS];\n";
    expect(await restrictedImportMessages(fromIndex, state)).toHaveLength(0);
  }, 60_000);

  it('keeps workers away from the PWA shell', async () => {
    const source = "import { startPwa } from '../../pwa/start-pwa';\nexport const x = startPwa;\n";
    expect(await restrictedImportMessages(source, 'src/workers/agent/agent.worker.ts')).not.toHaveLength(0);
    expect(await restrictedImportMessages("import '../../boot/strict-csp';\n", 'src/workers/agent/agent.worker.ts')).toHaveLength(0);
  }, 60_000);

  it('lets core/ import zod and other core modules', async () => {
    const source = "import { z } from 'zod';\nimport type { Clock } from './ports';\nexport const s = z.string();\nexport type C = Clock;\n";
    expect(await restrictedImportMessages(source, 'src/core/agent/emitter.ts')).toHaveLength(0);
  }, 60_000);
});
