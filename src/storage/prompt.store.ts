import { promptSchema } from '../core/model';
import type { PromptStore } from '../core/ports';
import type { CarrelDb } from './db';
import { createEntityStore } from './entity-table';

export function createPromptStore(db: CarrelDb): PromptStore {
  return createEntityStore<typeof promptSchema, string>(db, db.prompts, promptSchema, 'prompt');
}
