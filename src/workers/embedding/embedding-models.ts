import { z } from 'zod';

/** A selectable embedding model and the prefixes it was trained with. */
export interface EmbeddingModelInfo {
  id: string;
  label: string;
  dimensions: number;
  queryPrefix: string;
  passagePrefix: string;
}

export const DEFAULT_EMBEDDING_MODEL_ID = 'Xenova/all-MiniLM-L6-v2';

export const EMBEDDING_MODELS: readonly EmbeddingModelInfo[] = [
  {
    id: DEFAULT_EMBEDDING_MODEL_ID,
    label: 'MiniLM L6 v2 (English, 23 MB)',
    dimensions: 384,
    queryPrefix: '',
    passagePrefix: '',
  },
  {
    id: 'Xenova/bge-small-en-v1.5',
    label: 'BGE small v1.5 (English, 34 MB)',
    dimensions: 384,
    queryPrefix: 'Represent this sentence for searching relevant passages: ',
    passagePrefix: '',
  },
  {
    id: 'Xenova/multilingual-e5-small',
    label: 'E5 small (multilingual, 118 MB)',
    dimensions: 384,
    queryPrefix: 'query: ',
    passagePrefix: 'passage: ',
  },
];

/**
 * Where model files come from: the Hugging Face hub (cached by the browser after the first
 * download), a self-hosted folder such as `/models/`, or files imported from a local folder.
 */
export const embeddingSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('hub') }),
  z.object({ kind: z.literal('self_hosted'), baseUrl: z.string().min(1) }),
  z.object({ kind: z.literal('imported') }),
]);
export type EmbeddingSource = z.infer<typeof embeddingSourceSchema>;

export const embeddingSettingsSchema = z.object({
  modelId: z.string().min(1),
  /** The 8-bit ONNX file (`onnx/model_quantized.onnx`), four times smaller. */
  isQuantized: z.boolean(),
  source: embeddingSourceSchema,
  /** Off: nothing is ever downloaded; only cached, self-hosted or imported files are used. */
  canDownload: z.boolean(),
});
export type EmbeddingSettings = z.infer<typeof embeddingSettingsSchema>;

export const DEFAULT_EMBEDDING_SETTINGS: EmbeddingSettings = {
  modelId: DEFAULT_EMBEDDING_MODEL_ID,
  isQuantized: true,
  source: { kind: 'hub' },
  canDownload: true,
};

/** Known prefixes for the model, none for a model we do not know. */
export function describeEmbeddingModel(modelId: string): EmbeddingModelInfo {
  return (
    EMBEDDING_MODELS.find((model) => model.id === modelId) ?? {
      id: modelId,
      label: modelId,
      dimensions: 0,
      queryPrefix: '',
      passagePrefix: '',
    }
  );
}

/** The value stored in a chunk's `embeddingModel`: a quantized and a full model differ. */
export function embeddingModelKey(
  settings: Pick<EmbeddingSettings, 'modelId' | 'isQuantized'>,
): string {
  return settings.isQuantized ? `${settings.modelId}:q8` : settings.modelId;
}

/** The settings-store key of the user's embedding settings. */
export const EMBEDDING_SETTINGS_KEY = 'embeddingSettings';

/** The stored settings, or the defaults when none (or an unreadable older shape) are stored. */
export async function readEmbeddingSettings(store: {
  get<T>(key: string): Promise<T | undefined>;
}): Promise<EmbeddingSettings> {
  const parsed = embeddingSettingsSchema.safeParse(
    await store.get<unknown>(EMBEDDING_SETTINGS_KEY),
  );
  return parsed.success ? parsed.data : DEFAULT_EMBEDDING_SETTINGS;
}
