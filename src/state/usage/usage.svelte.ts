import type { Project, ProviderConfig, Session } from '../../core/model';
import type { UsageRecord } from '../../core/ports';
import { describeError } from '../shell/error-message';
import type { UsageReport } from './usage-report';

export interface UsageStateDeps {
  listUsage: () => Promise<UsageRecord[]>;
  listSessions: () => Promise<Session[]>;
  listProjects: () => Promise<Project[]>;
  /** The configured providers, for names and whether they bill (local ones do not). */
  providers: () => readonly ProviderConfig[];
}

/** The Usage screen: reads every usage record when the screen opens and sums it. */
export class UsageState {
  report = $state<UsageReport | null>(null);
  error = $state<string | null>(null);
  isLoading = $state(false);

  constructor(private readonly deps: UsageStateDeps) {}

  async load(): Promise<void> {
    this.isLoading = true;
    this.error = null;
    try {
      // The report prices answers from the model catalogue: both are fetched with the screen.
      const [records, sessions, projects, { buildUsageReport }] = await Promise.all([
        this.deps.listUsage(),
        this.deps.listSessions(),
        this.deps.listProjects(),
        import('./usage-report'),
      ]);
      this.report = buildUsageReport({ records, sessions, projects, providers: this.deps.providers() });
    } catch (caught) {
      this.error = describeError(caught, 'Could not read the usage records');
    } finally {
      this.isLoading = false;
    }
  }

  reset(): void {
    this.report = null;
    this.error = null;
  }
}
