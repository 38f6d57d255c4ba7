/**
 * Per-model correction of our token estimates, learned from the input-token usage providers
 * report. Pure functions: the caller stores the factor (per model) wherever it keeps settings.
 */

/** A factor of 1 means "our estimate is right"; 1.2 means the provider counts 20% more. */
export const NEUTRAL_CALIBRATION_FACTOR = 1;

/** Weight of the newest observation; small so one odd request cannot swing the factor. */
export const CALIBRATION_LEARNING_RATE = 0.3;

/** Bounds keep a broken usage report (0 tokens, cached-only counts) from poisoning estimates. */
export const MIN_CALIBRATION_FACTOR = 0.5;
export const MAX_CALIBRATION_FACTOR = 2.5;

/** Below this many estimated tokens the ratio is dominated by fixed overheads; ignore it. */
export const MIN_CALIBRATION_SAMPLE_TOKENS = 200;

function clampFactor(factor: number): number {
  return Math.min(MAX_CALIBRATION_FACTOR, Math.max(MIN_CALIBRATION_FACTOR, factor));
}

/** Moves the factor toward reported / estimated by an exponential moving average. */
export function updateCalibrationFactor(
  current: number,
  estimated: number,
  reported: number,
): number {
  if (!Number.isFinite(estimated) || !Number.isFinite(reported)) return current;
  if (estimated < MIN_CALIBRATION_SAMPLE_TOKENS || reported <= 0) return current;
  const observed = clampFactor(reported / estimated);
  return clampFactor(current + CALIBRATION_LEARNING_RATE * (observed - current));
}

/** Applies the factor to an estimate, rounding up so the budget errs on the safe side. */
export function applyCalibration(estimated: number, factor: number): number {
  if (factor === NEUTRAL_CALIBRATION_FACTOR) return estimated;
  return Math.ceil(estimated * factor);
}
