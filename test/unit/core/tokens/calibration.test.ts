import { describe, expect, it } from 'vitest';
import {
  applyCalibration,
  CALIBRATION_LEARNING_RATE,
  MAX_CALIBRATION_FACTOR,
  MIN_CALIBRATION_FACTOR,
  NEUTRAL_CALIBRATION_FACTOR,
  updateCalibrationFactor,
} from '../../../../src/core/tokens';

describe('calibration', () => {
  it('moves the factor toward reported / estimated by the learning rate', () => {
    const updated = updateCalibrationFactor(1, 1000, 1200);
    expect(updated).toBeCloseTo(1 + CALIBRATION_LEARNING_RATE * 0.2, 10);
  });

  it('converges to the true ratio after repeated reports', () => {
    let factor = NEUTRAL_CALIBRATION_FACTOR;
    for (let index = 0; index < 40; index++) factor = updateCalibrationFactor(factor, 2000, 2300);
    expect(factor).toBeCloseTo(1.15, 3);
  });

  it('ignores samples too small to say anything and reports of zero tokens', () => {
    expect(updateCalibrationFactor(1.1, 50, 500)).toBe(1.1);
    expect(updateCalibrationFactor(1.1, 5000, 0)).toBe(1.1);
    expect(updateCalibrationFactor(1.1, Number.NaN, 500)).toBe(1.1);
  });

  it('keeps the factor within its bounds however odd the report', () => {
    expect(updateCalibrationFactor(MAX_CALIBRATION_FACTOR, 1000, 1_000_000)).toBe(
      MAX_CALIBRATION_FACTOR,
    );
    expect(updateCalibrationFactor(MIN_CALIBRATION_FACTOR, 1_000_000, 1)).toBe(
      MIN_CALIBRATION_FACTOR,
    );
  });

  it('applies the factor rounding up, and leaves estimates alone at the neutral factor', () => {
    expect(applyCalibration(100, 1.234)).toBe(124);
    expect(applyCalibration(101, NEUTRAL_CALIBRATION_FACTOR)).toBe(101);
  });
});
