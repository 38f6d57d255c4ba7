import type * as ModelCatalogModule from '../../core/model/model-catalog';

/** What the page reads from the model catalogue: model facts and prices. */
export type ModelCatalog = Pick<typeof ModelCatalogModule, 'resolveModelInfo' | 'computeCost' | 'computeAnswerCost'>;

/**
 * The model catalogue (context windows, output limits, prices of some thousand models) is data
 * the first screen does not need, so the page fetches it after first paint instead of with its
 * entry script. `catalog` is reactive: what reads it (an answer's cost, the composer's pre-send
 * size check, the settings' model table) fills in once it has arrived.
 */
export class ModelCatalogState {
  catalog = $state.raw<ModelCatalog | null>(null);
  #loading: Promise<ModelCatalog> | null = null;

  constructor(private readonly importCatalog: () => Promise<ModelCatalog> = () => import('../../core/model/model-catalog')) {}

  /** Fetches the catalogue once; a failed fetch is tried again at the next call. */
  load(): Promise<ModelCatalog> {
    this.#loading ??= this.importCatalog().then(
      (catalog) => (this.catalog = catalog),
      (error: unknown) => {
        this.#loading = null;
        throw error;
      },
    );
    return this.#loading;
  }
}

/** The page's one copy. */
export const modelCatalog = new ModelCatalogState();
