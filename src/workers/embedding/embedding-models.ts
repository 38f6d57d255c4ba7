import {
  embeddingSettingsSchema,
  SETTINGS,
  type EmbeddingSettings,
} from '../../core/model/settings';

/** A selectable embedding model and the prefixes it was trained with. */
export interface EmbeddingModelInfo {
  id: string;
  label: string;
  dimensions: number;
  queryPrefix: string;
  passagePrefix: string;
}

export const DEFAULT_EMBEDDING_MODEL_ID = SETTINGS.embeddingSettings.defaultValue.modelId;

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

// The schemas live with every other setting's (core/model/settings.ts); re-exported here for
// the embedding code that has always imported them from this file.
export { embeddingSettingsSchema };
export {
  embeddingSourceSchema,
  type EmbeddingSettings,
  type EmbeddingSource,
} from '../../core/model/settings';

export const DEFAULT_EMBEDDING_SETTINGS: EmbeddingSettings = SETTINGS.embeddingSettings.defaultValue;

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
