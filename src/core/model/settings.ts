/**
 * Every app-wide setting: its key, the zod schema of its value and its default. The settings
 * store checks what it writes and reads against this map, and a backup's settings are checked
 * against it before an import writes anything, so a value no form could have produced (a
 * number where a prompt belongs) never reaches the code that reads it.
 *
 * Imported by its own path, not through `core/model`'s index: it depends on the web tools'
 * schemas, and pulling those into every importer of the model split the app's entry chunk so
 * that schemas were built before the strict-CSP set-up ran.
 */
import { z } from 'zod';
import { checkUrlShape } from '../agent/tools/url-shape';
import { DEFAULT_TURN_CHARACTER_BUDGET, webToolSettingsSchema } from '../agent/tools/web-tool-settings';
import { modelRefSchema } from './message';

/** A remote MCP server the user added (Streamable HTTP). */
export const mcpServerConfigSchema = z.object({
  id: z.string().min(1),
  /** Short name shown to the user and used in tool names, e.g. "weather". */
  name: z.string().trim().min(1).max(40),
  url: z.string().superRefine((url, ctx) => {
    // An absolute http(s) URL without credentials. The host (a metadata endpoint, a reserved
    // range) is judged where a server is connected (workers/agent/mcp/mcp-client.ts), so the
    // address tables stay out of the startup code that reads the settings.
    const verdict = checkUrlShape(url);
    if (!verdict.isAllowed) ctx.addIssue({ code: 'custom', message: verdict.reason });
  }),
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`; never put a key in the URL. */
  headers: z.record(z.string(), z.string()).default({}),
  /** MCP tool names (as the server calls them) that run without asking first. */
  allowedTools: z.array(z.string()).default([]),
  isEnabled: z.boolean().default(true),
});
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

/**
 * Where embedding model files come from: the Hugging Face hub (cached by the browser after the
 * first download), a self-hosted folder such as `/models/`, or files imported from a folder.
 */
export const embeddingSourceSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('hub') }),
  z.object({ kind: z.literal('self_hosted'), baseUrl: z.string().min(1) }),
  z.object({ kind: z.literal('imported') }),
]);
export type EmbeddingSource = z.infer<typeof embeddingSourceSchema>;

export const embeddingSettingsSchema = z.object({
  modelId: z.string().min(1),
  /** The 8-bit ONNX file (`onnx/model_quantized.onnx`), four times smaller. */
  isQuantized: z.boolean(),
  source: embeddingSourceSchema,
  /** Off: nothing is ever downloaded; only cached, self-hosted or imported files are used. */
  canDownload: z.boolean(),
});
export type EmbeddingSettings = z.infer<typeof embeddingSettingsSchema>;

export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

interface SettingDefinition<Schema extends z.ZodType> {
  schema: Schema;
  /** What a reader assumes when nothing (or nothing readable) is stored. */
  defaultValue: z.output<Schema>;
}

const define = <Schema extends z.ZodType>(
  schema: Schema,
  defaultValue: z.output<Schema>,
): SettingDefinition<Schema> => ({ schema, defaultValue });

export const SETTINGS = {
  /** The edited system prompt; null: the built-in default. */
  systemPrompt: define(z.string().nullable(), null),
  theme: define(z.enum(THEMES), 'system'),
  // Spelled out rather than parsed: nothing may parse at import time, before the app has set
  // zod to run without eval under the strict CSP.
  webTools: define(webToolSettingsSchema, {
    isEnabled: true,
    search: null,
    reader: null,
    shouldAllowPrivateNetwork: false,
    turnCharacterBudget: DEFAULT_TURN_CHARACTER_BUDGET,
  }),
  mcpServers: define(z.array(mcpServerConfigSchema), []),
  /** The model a new chat starts with; null: the first model listed. */
  defaultModel: define(modelRefSchema.nullable(), null),
  /** The model that writes summaries of long chats; null: the built-in model when there is one, else the chat's own. */
  compactionModel: define(modelRefSchema.nullable(), null),
  /** Learned token-count correction factors, by `providerId/modelId`. */
  tokenCalibration: define(z.record(z.string(), z.number().positive()), {}),
  embeddingSettings: define(embeddingSettingsSchema, {
    modelId: 'Xenova/all-MiniLM-L6-v2',
    isQuantized: true,
    source: { kind: 'hub' },
    canDownload: true,
  }),
};
export type SettingKey = keyof typeof SETTINGS;
export type SettingValue<Key extends SettingKey> = z.output<(typeof SETTINGS)[Key]['schema']>;

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

/**
 * Checks a value for a registered key. Unregistered keys are not for this map to judge: the
 * caller decides (the store keeps them, an import leaves them out).
 */
export function checkSettingValue(
  key: SettingKey,
  value: unknown,
): { success: true } | { success: false; error: z.ZodError } {
  const parsed = SETTINGS[key].schema.safeParse(value);
  return parsed.success ? { success: true } : { success: false, error: parsed.error };
}
