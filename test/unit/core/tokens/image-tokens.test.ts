import { describe, expect, it } from 'vitest';
import {
  estimateAnthropicImageTokens,
  estimateImageTokens,
  estimateOpenAiImageTokens,
  GEMINI_IMAGE_TOKENS,
} from '../../../../src/core/tokens';

describe('image token estimates', () => {
  it('prices OpenAI images by 512px tiles after fitting 2048 and shrinking the short side to 768', () => {
    expect(estimateOpenAiImageTokens({ width: 1024, height: 1024 })).toBe(85 + 170 * 4);
    expect(estimateOpenAiImageTokens({ width: 256, height: 256 })).toBe(85 + 170);
    // 2048×4096 → 1024×2048 → 768×1536: 2 × 3 tiles.
    expect(estimateOpenAiImageTokens({ width: 2048, height: 4096 })).toBe(85 + 170 * 6);
  });

  it('prices Anthropic images at pixels / 750 after fitting the long edge to 1568px', () => {
    expect(estimateAnthropicImageTokens({ width: 1000, height: 750 })).toBe(1000);
    expect(estimateAnthropicImageTokens({ width: 3136, height: 3136 })).toBe(
      Math.ceil((1568 * 1568) / 750),
    );
  });

  it('prices Gemini images at a fixed cost whatever their size', () => {
    expect(estimateImageTokens('google', { width: 4000, height: 3000 })).toBe(GEMINI_IMAGE_TOKENS);
    expect(estimateImageTokens('google', { width: 10, height: 10 })).toBe(GEMINI_IMAGE_TOKENS);
  });

  it('uses the OpenAI formula for OpenAI-compatible providers', () => {
    const size = { width: 1200, height: 800 };
    expect(estimateImageTokens('openai-compatible', size)).toBe(estimateOpenAiImageTokens(size));
    expect(estimateImageTokens('anthropic', size)).toBe(estimateAnthropicImageTokens(size));
  });
});
