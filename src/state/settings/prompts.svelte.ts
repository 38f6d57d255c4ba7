import { promptSchema, type SavedPrompt } from '../../core/model';
import type { PromptStore } from '../../core/ports';
import type { NoticesState } from '../shell/notices.svelte';
import type { WatchList } from '../chat/sessions.svelte';

export interface PromptsDeps {
  store: PromptStore;
  watchPrompts: WatchList<SavedPrompt>;
  notices: NoticesState;
  newId(): string;
  now(): number;
}

/** What the prompt form holds; `id` is absent for a new prompt. */
export interface PromptDraft {
  id?: string;
  title: string;
  text: string;
}

/** The prompt library: the prompts screen edits it, the composer's `/` inserts from it. */
export class PromptsState {
  prompts = $state<SavedPrompt[]>([]);
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: PromptsDeps) {
    this.unsubscribe = deps.watchPrompts(
      (prompts) => {
        this.prompts = prompts;
      },
      (error) => deps.notices.report(error, 'Could not load your prompts'),
    );
  }

  /**
   * Checks the draft and stores it; returns the stored prompt, or the reason it was refused
   * (a missing title or text) as a string, so the form can show it beside the fields.
   */
  async save(draft: PromptDraft): Promise<SavedPrompt | string> {
    const now = this.deps.now();
    const existing = draft.id === undefined ? undefined : this.prompts.find((p) => p.id === draft.id);
    const parsed = promptSchema.safeParse({
      id: existing?.id ?? this.deps.newId(),
      title: draft.title,
      text: draft.text,
      createdAt: existing?.createdAt ?? now,
      updatedAt: now,
    });
    if (!parsed.success) return parsed.error.issues.map((issue) => issue.message).join('; ');
    const saved = await this.deps.notices.guard('Could not save the prompt', async () => {
      await this.deps.store.put(parsed.data);
      return parsed.data;
    });
    return saved ?? 'The prompt was not saved.';
  }

  async remove(prompt: SavedPrompt): Promise<void> {
    const isDeleted = await this.deps.notices.guard('Could not delete the prompt', async () => {
      await this.deps.store.delete(prompt.id);
      return true;
    });
    if (!isDeleted) return;
    this.deps.notices.notify(`Deleted the prompt "${prompt.title}".`, {
      action: {
        label: 'Undo',
        run: () => void this.deps.notices.guard('Could not restore the prompt', () => this.deps.store.put(prompt)),
      },
    });
  }

  dispose(): void {
    this.unsubscribe();
  }
}
