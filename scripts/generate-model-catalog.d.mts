// Types for generate-model-catalog.mjs, so the TypeScript tests can import it checked.
import type { CatalogEntry } from '../src/core/model/model-catalog.overrides';

export const DATA_PATH: string;
export function buildCatalog(): CatalogEntry[];
export function packageVersion(): string;
export function renderCatalog(entries: readonly CatalogEntry[], version?: string): string;
