import type { Project, Session, SessionId } from '../../core/model';
import type { SearchHit, SearchIndex, SessionStore } from '../../core/ports';
import type { AgentWorkerApi } from '../../workers/agent/agent.api';
import type { NoticesState } from '../shell/notices.svelte';

/** Subscribes to a stored list (every tab's changes included); returns the unsubscribe. */
export type WatchList<T> = (onValue: (values: T[]) => void, onError: (error: Error) => void) => () => void;
/** Kept for the composition root's older call sites. */
export type WatchSessions = WatchList<Session>;

export const SEARCH_RESULT_LIMIT = 20;

export interface SessionsDeps {
  watchSessions: WatchList<Session>;
  watchProjects?: WatchList<Project>;
  store: SessionStore;
  notices: NoticesState;
  /** Stops the chat's answer, in whichever tab it runs (a deleted chat stops answering). */
  stopAnswering?: (sessionId: SessionId) => void;
  /**
   * A full-text index over every stored chat. Built on demand in this tab: the agent worker
   * writes messages through its own connection, so this tab's index is rebuilt after changes.
   */
  buildSearchIndex(): Promise<SearchIndex>;
  /** Compaction in the agent worker: "Compact now" and "Undo compaction" of the chat menu. */
  compaction?: Pick<AgentWorkerApi, 'compactNow' | 'undoCompaction'>;
}

/** The sidebar's chats and projects, kept current by live queries, with their actions. */
export class SessionsState {
  /** Every stored session, archived ones included, newest activity first. */
  all = $state<Session[]>([]);
  projects = $state<Project[]>([]);
  /** Deleted, but still undoable: hidden everywhere until the toast expires. */
  pendingDeleteIds = $state<SessionId[]>([]);
  error = $state<string | null>(null);
  searchHits = $state<SearchHit[]>([]);
  isSearching = $state(false);
  private index: SearchIndex | null = null;
  private indexBuild: Promise<SearchIndex> | null = null;
  private searchToken = 0;
  private readonly unsubscribes: Array<() => void> = [];

  constructor(private readonly deps: SessionsDeps) {
    this.unsubscribes.push(
      deps.watchSessions(
        (sessions) => {
          this.all = sessions;
          this.error = null;
          // Anything changed (a new answer bumps its session): the search index is stale.
          this.index = null;
          this.indexBuild = null;
        },
        (error) => {
          this.error = error.message;
          deps.notices.report(error, 'Could not load your chats');
        },
      ),
    );
    if (deps.watchProjects) {
      this.unsubscribes.push(
        deps.watchProjects(
          (projects) => {
            this.projects = projects;
          },
          (error) => deps.notices.report(error, 'Could not load your projects'),
        ),
      );
    }
  }

  /** Chats shown in the sidebar: not archived, not waiting to be deleted. */
  readonly sessions: Session[] = $derived(
    this.all.filter((s) => !s.isArchived && !this.pendingDeleteIds.includes(s.id)),
  );
  readonly archived: Session[] = $derived(
    this.all.filter((s) => s.isArchived && !this.pendingDeleteIds.includes(s.id)),
  );

  sessionsOfProject(projectId: Project['id']): Session[] {
    return this.sessions.filter((s) => s.projectId === projectId);
  }

  async togglePin(session: Session): Promise<void> {
    await this.deps.notices.guard('Could not pin the chat', () =>
      this.deps.store.update(session.id, { isPinned: !session.isPinned }),
    );
  }

  async rename(session: Session, title: string): Promise<void> {
    const trimmed = title.trim();
    if (trimmed === '' || trimmed === session.title) return;
    await this.deps.notices.guard('Could not rename the chat', () => this.deps.store.update(session.id, { title: trimmed }));
  }

  /**
   * "Compact now": the oldest turns of the chat's visible branch are summarised (the newest stay
   * verbatim); every message stays stored and shown. Says what happened in a toast.
   */
  async compactNow(session: Session): Promise<void> {
    const compaction = this.deps.compaction;
    if (!compaction) return;
    const result = await this.deps.notices.guard('Could not compact the chat', () => compaction.compactNow(session.id));
    if (!result) return;
    if (!result.ok) {
      this.deps.notices.report(new Error(result.error.message), 'Could not compact the chat');
      return;
    }
    this.deps.notices.notify(
      result.value === null
        ? 'Nothing to compact yet: the chat is short, or its oldest turns are already summarised.'
        : `Compacted: ${result.value.coveredIds.length} earlier messages are sent as a summary. Every message is still here.`,
      result.value === null ? {} : { action: { label: 'Undo', run: () => void this.undoCompaction(session) } },
    );
  }

  /** "Undo compaction": the branch's summary is kept but no longer sent; its messages are sent again. */
  async undoCompaction(session: Session): Promise<void> {
    const compaction = this.deps.compaction;
    if (!compaction) return;
    const result = await this.deps.notices.guard('Could not undo the compaction', () => compaction.undoCompaction(session.id));
    if (!result) return;
    if (!result.ok) {
      this.deps.notices.report(new Error(result.error.message), 'Could not undo the compaction');
      return;
    }
    this.deps.notices.notify(
      result.value === null ? 'This chat has no compaction to undo.' : 'Compaction undone: the earlier messages are sent as they are again.',
    );
  }

  async setArchived(session: Session, isArchived: boolean): Promise<void> {
    const updated = await this.deps.notices.guard(
      isArchived ? 'Could not archive the chat' : 'Could not restore the chat',
      () => this.deps.store.update(session.id, { isArchived }),
    );
    if (!updated || !isArchived) return;
    this.deps.notices.notify(`Archived "${displayTitle(session)}".`, {
      action: { label: 'Undo', run: () => void this.setArchived(session, false) },
    });
  }

  /**
   * Hides the chat at once and deletes it when the Undo toast expires; Undo brings it back
   * untouched. A tab closed meanwhile keeps the chat (nothing was deleted yet).
   */
  remove(session: Session): void {
    if (this.pendingDeleteIds.includes(session.id)) return;
    this.pendingDeleteIds = [...this.pendingDeleteIds, session.id];
    // Gone from sight, so no longer answering: the answer so far is kept, stopped, for Undo.
    this.deps.stopAnswering?.(session.id);
    const forget = () => {
      this.pendingDeleteIds = this.pendingDeleteIds.filter((id) => id !== session.id);
    };
    this.deps.notices.notify(`Deleted "${displayTitle(session)}".`, {
      action: { label: 'Undo', run: forget },
      onExpire: () => {
        void this.deps.notices
          .guard('Could not delete the chat', () => this.deps.store.delete(session.id))
          .finally(forget);
      },
    });
  }

  /** Full-text search over titles and messages; one hit per chat, best first. */
  async search(query: string): Promise<void> {
    const token = ++this.searchToken;
    if (query.trim() === '') {
      this.searchHits = [];
      return;
    }
    this.isSearching = true;
    try {
      const index = await this.loadIndex();
      if (token !== this.searchToken) return;
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a local lookup, never rendered
      const visible = new Set(this.all.filter((s) => !this.pendingDeleteIds.includes(s.id)).map((s) => s.id));
      // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a local lookup, never rendered
      const seen = new Set<SessionId>();
      const hits: SearchHit[] = [];
      for (const hit of index.search(query, SEARCH_RESULT_LIMIT * 3)) {
        if (!visible.has(hit.sessionId) || seen.has(hit.sessionId)) continue;
        seen.add(hit.sessionId);
        const session = this.all.find((s) => s.id === hit.sessionId);
        hits.push({ ...hit, title: session ? displayTitle(session) : hit.title });
        if (hits.length === SEARCH_RESULT_LIMIT) break;
      }
      this.searchHits = hits;
    } catch (error) {
      this.deps.notices.report(error, 'Search failed');
    } finally {
      if (token === this.searchToken) this.isSearching = false;
    }
  }

  private loadIndex(): Promise<SearchIndex> {
    if (this.index) return Promise.resolve(this.index);
    const build = this.deps.buildSearchIndex().then((index) => {
      if (this.indexBuild === build) this.index = index;
      return index;
    });
    this.indexBuild = build;
    return build;
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribes) unsubscribe();
  }
}

export function displayTitle(session: Pick<Session, 'title'>): string {
  return session.title.trim() || 'New chat';
}
