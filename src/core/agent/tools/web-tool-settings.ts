import { z } from 'zod';
import { searchBackendConfigSchema } from './search-backends/search-backend';

/*
 * The web tools' settings, apart from the tools: the settings registry (core/model/settings.ts)
 * reads them at startup, and the tools' code (the address policy with its IP tables) then
 * loads only where a tool runs.
 */

/** Characters all open_url calls of one turn may add together (the per-turn budget). */
export const DEFAULT_TURN_CHARACTER_BUDGET = 80_000;

export const readerSettingsSchema = z.object({
  /**
   * A reader or CORS proxy the user trusts, with `{url}` (percent-encoded page URL) or
   * `{raw_url}` (as is), e.g. `https://r.jina.ai/{raw_url}` or `https://proxy.example/?url={url}`.
   */
  urlTemplate: z
    .string()
    .regex(/^https?:\/\/\S+$/, 'The reader URL must start with http:// or https://.')
    .refine(
      (template) => template.includes('{url}') || template.includes('{raw_url}'),
      'The reader URL needs {url} or {raw_url}.',
    ),
  /** false: only when the site itself cannot be read from the browser (CORS, network). */
  shouldAlwaysUse: z.boolean().default(false),
  headers: z.record(z.string(), z.string()).default({}),
});
export type ReaderSettings = z.infer<typeof readerSettingsSchema>;

/** The settings key under which the web tools' settings are stored. */
export const WEB_TOOL_SETTINGS_KEY = 'webTools';

export const webToolSettingsSchema = z.object({
  /** The user's master switch for web_search and open_url. */
  isEnabled: z.boolean().default(true),
  /** null: no search service configured, so web_search is not offered. */
  search: searchBackendConfigSchema.nullable().default(null),
  reader: readerSettingsSchema.nullable().default(null),
  /** Lets open_url reach private, loopback and link-local addresses (self-hosted pages). */
  shouldAllowPrivateNetwork: z.boolean().default(false),
  turnCharacterBudget: z.number().int().positive().default(DEFAULT_TURN_CHARACTER_BUDGET),
});
export type WebToolSettings = z.infer<typeof webToolSettingsSchema>;
