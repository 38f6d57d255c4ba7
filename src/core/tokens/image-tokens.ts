import type { ProviderKind } from '../model';

/**
 * Estimated input tokens of one image, per provider. These follow each provider's published
 * formula; they are estimates because providers resize images server-side.
 */

/** OpenAI (gpt-4o family, high detail): 85 base + 170 per 512 px tile after resizing. */
export const OPENAI_IMAGE_BASE_TOKENS = 85;
export const OPENAI_IMAGE_TILE_TOKENS = 170;
const OPENAI_TILE_SIZE = 512;
const OPENAI_MAX_SIDE = 2048;
const OPENAI_SHORT_SIDE = 768;

/** Anthropic: width × height / 750 after scaling the long edge down to 1568 px. */
export const ANTHROPIC_PIXELS_PER_TOKEN = 750;
const ANTHROPIC_MAX_LONG_EDGE = 1568;

/** Gemini bills a fixed 258 tokens per image. */
export const GEMINI_IMAGE_TOKENS = 258;

export interface ImageSize {
  width: number;
  height: number;
}

function scaleToFit(size: ImageSize, maxWidth: number, maxHeight: number): ImageSize {
  const scale = Math.min(1, maxWidth / size.width, maxHeight / size.height);
  return { width: size.width * scale, height: size.height * scale };
}

export function estimateOpenAiImageTokens(size: ImageSize): number {
  const fitted = scaleToFit(size, OPENAI_MAX_SIDE, OPENAI_MAX_SIDE);
  const shortSide = Math.min(fitted.width, fitted.height);
  const scale = shortSide > OPENAI_SHORT_SIDE ? OPENAI_SHORT_SIDE / shortSide : 1;
  const tilesWide = Math.ceil((fitted.width * scale) / OPENAI_TILE_SIZE);
  const tilesHigh = Math.ceil((fitted.height * scale) / OPENAI_TILE_SIZE);
  return OPENAI_IMAGE_BASE_TOKENS + OPENAI_IMAGE_TILE_TOKENS * tilesWide * tilesHigh;
}

export function estimateAnthropicImageTokens(size: ImageSize): number {
  const fitted = scaleToFit(size, ANTHROPIC_MAX_LONG_EDGE, ANTHROPIC_MAX_LONG_EDGE);
  return Math.ceil((fitted.width * fitted.height) / ANTHROPIC_PIXELS_PER_TOKEN);
}

/** OpenAI-compatible servers mostly run OpenAI-style vision stacks, so they use its formula. */
export function estimateImageTokens(provider: ProviderKind, size: ImageSize): number {
  switch (provider) {
    case 'openai':
    case 'openai-compatible':
      return estimateOpenAiImageTokens(size);
    // The built-in models read no images; the figure only matters if one is attached anyway.
    case 'local':
      return estimateOpenAiImageTokens(size);
    case 'anthropic':
      return estimateAnthropicImageTokens(size);
    case 'google':
      return GEMINI_IMAGE_TOKENS;
  }
}
