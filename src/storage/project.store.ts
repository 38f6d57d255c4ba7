import { projectSchema, type ProjectId } from '../core/model';
import type { Clock, ProjectStore } from '../core/ports';
import type { CarrelDb } from './db';
import { createEntityStore } from './entity-table';
import { guardStorage } from './guard';

/**
 * Deleting a project deletes its files and chunks (they exist only for it) but keeps its chats,
 * which become ordinary chats: a conversation is the user's work, a project file is a copy.
 */
export function createProjectStore(db: CarrelDb, clock: Clock): ProjectStore {
  const entities = createEntityStore<typeof projectSchema, ProjectId>(
    db,
    db.projects,
    projectSchema,
    'project',
  );
  return {
    ...entities,
    delete: (id) =>
      guardStorage(db, () =>
        db.transaction('rw', [db.projects, db.files, db.fileTexts, db.chunks, db.searchBlocks, db.searchSnapshots, db.sessions], async () => {
          await db.chunks.where('projectId').equals(id).delete();
          await db.searchBlocks.where('projectId').equals(id).delete();
          await db.searchSnapshots.delete(id);
          await db.fileTexts.where('projectId').equals(id).delete();
          await db.files.where('projectId').equals(id).delete();
          await db.sessions
            .where('projectId')
            .equals(id)
            .modify((session) => {
              session.projectId = null;
              session.version += 1;
              session.updatedAt = clock.now();
            });
          await db.projects.delete(id);
        }),
      ),
  };
}
