import type { ProviderConfig } from '../../../src/core/model';
import { buildProvider, type FixtureWire } from '../../unit/llm/replay';

const PRESET_BY_WIRE = {
  'openai-chat': 'openai',
  'openai-responses': 'openai',
  'openai-compatible': 'openrouter',
  anthropic: 'anthropic',
  google: 'google',
} as const;

/** A provider config that makes the client speak `wire`. */
export function buildWireProvider(wire: FixtureWire): ProviderConfig {
  return buildProvider(PRESET_BY_WIRE[wire], wire === 'openai-responses' ? { api: 'responses' } : {});
}
