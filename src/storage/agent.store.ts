import { agentSchema, type AgentId } from '../core/model';
import type { AgentStore } from '../core/ports';
import type { CarrelDb } from './db';
import { createEntityStore } from './entity-table';

export function createAgentStore(db: CarrelDb): AgentStore {
  return createEntityStore<typeof agentSchema, AgentId>(db, db.agents, agentSchema, 'agent');
}
