import {
  mergeGenerationSettings,
  type Agent,
  type GenerationControls,
  type ModelInfo,
  type Session,
} from '../model';

export interface ResolvedGeneration {
  /** The most the answer may have before the window is taken into account (the request lowers it). */
  maxOutputTokens: number;
  /** What the context keeps free for the answer; undefined: the model's own maximum. */
  reservedOutputTokens: number | undefined;
  /** Sampling and reasoning; the LLM adapter sends each where the provider expects it. */
  controls: GenerationControls;
}

/**
 * One model's generation settings for a turn: the agent's, with the chat's override on top,
 * field by field. An answer length above the model's maximum is held to it.
 */
export function resolveGeneration(
  agent: Pick<Agent, 'generation'> | null,
  session: Pick<Session, 'generationOverride'> | null,
  model: Pick<ModelInfo, 'maxOutputTokens'>,
): ResolvedGeneration {
  const { maxOutputTokens, ...controls } = mergeGenerationSettings(
    agent?.generation,
    session?.generationOverride,
  );
  const answer =
    maxOutputTokens === undefined
      ? model.maxOutputTokens
      : Math.min(maxOutputTokens, model.maxOutputTokens);
  return {
    maxOutputTokens: answer,
    reservedOutputTokens: maxOutputTokens === undefined ? undefined : answer,
    controls,
  };
}
