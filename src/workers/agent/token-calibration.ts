import { z } from 'zod';
import type { TokenCalibration } from '../../core/agent/assemble-turn';
import type { SettingsStore } from '../../core/ports';
import { NEUTRAL_CALIBRATION_FACTOR, updateCalibrationFactor } from '../../core/tokens';

/** Settings key of the learned token calibration factors, by provider and model. */
export const TOKEN_CALIBRATION_SETTING = 'tokenCalibration';
const calibrationSchema = z.record(z.string(), z.number().positive());

async function loadFactors(settings: SettingsStore): Promise<Record<string, number>> {
  const parsed = calibrationSchema.safeParse((await settings.get(TOKEN_CALIBRATION_SETTING)) ?? {});
  return parsed.success ? { ...parsed.data } : {};
}

/**
 * The factors learned so far, read once per turn; each step's reported usage moves its model's
 * factor and saves it, merged with what other tabs learned meanwhile (a lost update only slows
 * the learning).
 */
export async function loadTokenCalibration(settings: SettingsStore): Promise<TokenCalibration> {
  const factors = await loadFactors(settings);
  return {
    factor: (key) => factors[key] ?? NEUTRAL_CALIBRATION_FACTOR,
    learn(key, estimated, usage) {
      const current = factors[key] ?? NEUTRAL_CALIBRATION_FACTOR;
      const next = updateCalibrationFactor(current, estimated, usage.inputTokens);
      if (next === current) return;
      factors[key] = next;
      void loadFactors(settings)
        .then((stored) => settings.set(TOKEN_CALIBRATION_SETTING, { ...stored, [key]: next }))
        .catch((error: unknown) => console.warn('Could not save the token calibration:', error));
    },
  };
}
