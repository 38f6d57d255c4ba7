import type { ProjectId } from '../../core/model';
import type {
  ProjectSearchRequest,
  ProjectSearchResult,
  WorkerResult,
} from '../../workers/agent/agent.api';
import { describeError } from '../shell/error-message';

/** Typing pauses this long before a search runs; Enter searches at once. */
export const PROJECT_SEARCH_DEBOUNCE_MS = 250;

export interface ProjectSearchDeps {
  /** The agent worker's project search; aborting the signal cancels it there. */
  search: (
    request: ProjectSearchRequest,
    signal: AbortSignal,
  ) => Promise<WorkerResult<ProjectSearchResult>>;
  /** Runs `callback` after `ms`; returns the cancel. setTimeout in the app, manual in tests. */
  schedule?: (callback: () => void, ms: number) => () => void;
  /** Whether the browser is online when a result arrives (it words a keyword-only reason). */
  isOnline?: () => boolean;
}

/** The finished search the results list shows, with the query it answered. */
export interface ProjectSearchOutcome extends ProjectSearchResult {
  query: string;
  isOnline: boolean;
}

export type ProjectSearchPhase = 'idle' | 'pending' | 'searching' | 'done' | 'failed';

/** `navigator.onLine` is false only when there is surely no network; tests may lack it. */
const readIsOnline = (): boolean => typeof navigator === 'undefined' || navigator.onLine !== false;

const scheduleWithTimer = (callback: () => void, ms: number): (() => void) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

/**
 * The project screen's search box: debounces typing, cancels a search a newer query
 * superseded (in the worker too), and keeps the last finished result or error.
 */
export class ProjectSearchState {
  query = $state('');
  phase = $state<ProjectSearchPhase>('idle');
  outcome = $state<ProjectSearchOutcome | null>(null);
  error = $state<string | null>(null);
  private cancelTimer: (() => void) | null = null;
  private running: AbortController | null = null;

  constructor(private readonly deps: ProjectSearchDeps) {}

  /** The box changed: searches once typing pauses; an empty box clears the results. */
  setQuery(projectId: ProjectId, query: string): void {
    this.query = query;
    this.cancelPending();
    if (query.trim() === '') {
      this.outcome = null;
      this.error = null;
      this.phase = 'idle';
      return;
    }
    this.phase = 'pending';
    const schedule = this.deps.schedule ?? scheduleWithTimer;
    this.cancelTimer = schedule(() => {
      this.cancelTimer = null;
      void this.run(projectId, query);
    }, PROJECT_SEARCH_DEBOUNCE_MS);
  }

  /** Enter: searches the current query now. */
  async submit(projectId: ProjectId): Promise<void> {
    this.cancelPending();
    if (this.query.trim() === '') return;
    await this.run(projectId, this.query);
  }

  /** Another project opened (or the screen closed): nothing of this search carries over. */
  reset(): void {
    this.cancelPending();
    this.query = '';
    this.outcome = null;
    this.error = null;
    this.phase = 'idle';
  }

  dispose(): void {
    this.reset();
  }

  private async run(projectId: ProjectId, query: string): Promise<void> {
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    this.phase = 'searching';
    let result: WorkerResult<ProjectSearchResult>;
    try {
      result = await this.deps.search({ projectId, query }, controller.signal);
    } catch (error) {
      result = {
        ok: false,
        error: {
          code: 'internal',
          message: error instanceof Error ? error.message : String(error),
        },
      };
    }
    // A newer query (or a reset) took over: this answer is never shown.
    if (controller.signal.aborted) return;
    this.running = null;
    if (result.ok) {
      this.outcome = {
        ...result.value,
        query: query.trim(),
        isOnline: (this.deps.isOnline ?? readIsOnline)(),
      };
      this.error = null;
      this.phase = 'done';
    } else {
      this.outcome = null;
      this.error =
        describeError(result.error, 'Could not search the files') ?? 'Could not search the files.';
      this.phase = 'failed';
    }
  }

  private cancelPending(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.running?.abort();
    this.running = null;
  }
}
