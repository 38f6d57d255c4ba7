import type { Attachment, ModelInfo, ModelRef, ProviderConfig } from '../../core/model';
import type { FileStore } from '../../core/ports';
import type { IngestClient, IngestOutcome } from '../../workers/ingest/ingest.client';
import { checkAttachmentFits } from '../projects/project-fit';

/** One chip above the composer: the file, its progress, then its token count or its error. */
export interface AttachmentChip {
  key: string;
  name: string;
  status: 'working' | 'ready' | 'failed';
  fraction: number;
  attachment: Attachment | null;
  error: string | null;
}

/** Where the next message's files are kept: the database, or memory for a temporary chat. */
export interface AttachmentPlace {
  isTemporary: boolean;
  files: Pick<FileStore, 'get' | 'put'>;
}

export interface AttachmentsDeps {
  files: Pick<FileStore, 'get' | 'put'>;
  /** The open chat's place for files; without it, the database (`files`). */
  place?: () => AttachmentPlace;
  loadIngest(): IngestClient;
  newId(): string;
}

/**
 * Point-in-time files for the next message (button, drop, paste): ingested as attachments
 * (no project), counted, then sent with the message, which keeps them.
 */
export class AttachmentsState {
  chips = $state<AttachmentChip[]>([]);
  /** How to stop each chip's file while it is being read, by chip key. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- bookkeeping, never rendered
  private readonly cancels = new Map<string, () => void>();

  constructor(private readonly deps: AttachmentsDeps) {}

  get isWorking(): boolean {
    return this.chips.some((chip) => chip.status === 'working');
  }

  async add(files: readonly File[]): Promise<void> {
    if (files.length === 0) return;
    const batch = `${this.deps.newId()}:`;
    this.chips = [
      ...this.chips,
      ...files.map((file, index) => ({
        key: `${batch}${index}`,
        name: file.name || 'pasted file',
        status: 'working' as const,
        fraction: 0,
        attachment: null,
        error: null,
      })),
    ];
    const fail = (keys: readonly string[], error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      this.chips = this.chips.map((chip) => (keys.includes(chip.key) ? { ...chip, status: 'failed', error: message } : chip));
    };
    const keys = files.map((_, index) => `${batch}${index}`);
    const place = this.deps.place?.() ?? { isTemporary: false, files: this.deps.files };
    try {
      const job = this.deps.loadIngest().ingestFiles(
        null,
        files.map((file) => ({ name: file.name || 'pasted file', mimeType: file.type, blob: file })),
        (progress) => this.patch(`${batch}${progress.key}`, { fraction: progress.fraction }),
        place.isTemporary,
      );
      // Each chip settles when its own file is read; removing a chip stops its file.
      await Promise.all(
        job.files.map(async (fileJob, index) => {
          const key = keys[index] ?? '';
          this.cancels.set(key, () => fileJob.cancel());
          try {
            await this.settle(key, await fileJob.result, place);
          } catch (error) {
            fail([key], error);
          } finally {
            this.cancels.delete(key);
          }
        }),
      );
    } catch (error) {
      fail(keys, error);
    }
  }

  /** Takes the chip away; a file still being read is stopped. */
  remove(key: string): void {
    this.cancels.get(key)?.();
    this.chips = this.chips.filter((chip) => chip.key !== key);
  }

  /** The first refusal for this model (the context engine's file_too_large message), if any. */
  refusal(model: ModelInfo | null): string | null {
    for (const chip of this.chips) {
      const refused = chip.attachment ? checkAttachmentFits(chip.attachment, model) : null;
      if (refused) return refused;
    }
    return null;
  }

  /** Why the composer cannot send yet ('' when it can): a file still being read, or too large. */
  blockReason(model: ModelInfo | null): string {
    if (this.isWorking) return 'Wait until the attached files are read.';
    return this.refusal(model) ?? '';
  }

  /**
   * The ready attachments as plain data for the send request. Their chips stay until `clear`
   * runs, once the message is stored: a refused send leaves the files attached.
   */
  prepareSend(): { attachments: Attachment[]; clear(): void } {
    // Files still being read stay for the next message; failed reads go with this one.
    const settled = this.chips.filter((chip) => chip.status !== 'working');
    const keys = settled.map((chip) => chip.key);
    return {
      attachments: settled.flatMap((chip) => (chip.attachment ? [$state.snapshot(chip.attachment)] : [])),
      clear: () => {
        this.chips = this.chips.filter((chip) => !keys.includes(chip.key));
      },
    };
  }

  private async settle(key: string, outcome: IngestOutcome, place: AttachmentPlace): Promise<void> {
    if (outcome.kind === 'cancelled') return this.patch(key, { status: 'failed', error: 'Cancelled.' });
    if (outcome.kind === 'rejected') return this.patch(key, { status: 'failed', error: outcome.error.message });
    // A file read in memory (a temporary chat's) comes back whole and is kept where the chat is.
    if (outcome.kind === 'stored' && outcome.file) await place.files.put(outcome.file);
    const file = await place.files.get(outcome.fileId);
    if (!file) return this.patch(key, { status: 'failed', error: 'The file was not stored.' });
    const image = outcome.kind === 'stored' ? outcome.image : undefined;
    const attachment: Attachment = {
      fileId: file.id,
      name: file.name,
      mimeType: file.mimeType,
      kind: image || file.mimeType.startsWith('image/') ? 'image' : 'text',
      sizeBytes: file.sizeBytes,
      tokenCount: file.tokenCount,
      status: file.status,
      ...(file.text === undefined ? {} : { text: file.text }),
      ...(file.error === undefined ? {} : { error: file.error }),
      ...(image ? { image: { ...image, dataUrl: await readDataUrl(file.blob) } } : {}),
    };
    this.patch(key, {
      status: file.status === 'error' ? 'failed' : 'ready',
      fraction: 1,
      attachment,
      error: file.status === 'ready' ? null : (file.error ?? 'No extractable text: the model is told so.'),
    });
  }

  private patch(key: string, patch: Partial<AttachmentChip>): void {
    this.chips = this.chips.map((chip) => (chip.key === key ? { ...chip, ...patch } : chip));
  }
}

function readDataUrl(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () =>
      typeof reader.result === 'string' ? resolve(reader.result) : reject(new Error('Could not read the image.'));
    reader.onerror = () => reject(reader.error ?? new Error('Could not read the image.'));
    reader.readAsDataURL(blob);
  });
}

/**
 * What the composer's model is, for the pre-send size check (catalog, override or guess); null
 * without a model or while the catalogue loads.
 */
export function resolveComposerModel(
  providers: { providers: readonly ProviderConfig[]; describeModel(provider: ProviderConfig, modelId: string): ModelInfo | null },
  model: ModelRef | undefined,
): ModelInfo | null {
  const provider = model ? providers.providers.find((p) => p.id === model.providerId) : undefined;
  return model && provider ? providers.describeModel(provider, model.modelId) : null;
}
