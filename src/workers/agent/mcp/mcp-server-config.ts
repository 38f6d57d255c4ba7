import { z } from 'zod';
import { checkUrl } from '../../../core/agent/tools/url-policy';

/** The settings key under which the user's MCP servers are stored. */
export const MCP_SERVERS_SETTING_KEY = 'mcpServers';

/** A remote MCP server the user added (Streamable HTTP). */
export const mcpServerConfigSchema = z.object({
  id: z.string().min(1),
  /** Short name shown to the user and used in tool names, e.g. "weather". */
  name: z.string().trim().min(1).max(40),
  url: z.string().superRefine((url, ctx) => {
    // User-chosen, so local servers are fine; the scheme, credentials and metadata rules hold.
    const verdict = checkUrl(url, { shouldAllowPrivateNetwork: true });
    if (!verdict.isAllowed) ctx.addIssue({ code: 'custom', message: verdict.reason });
  }),
  /** Sent with every request, e.g. `{ Authorization: 'Bearer …' }`; never put a key in the URL. */
  headers: z.record(z.string(), z.string()).default({}),
  /** MCP tool names (as the server calls them) that run without asking first. */
  allowedTools: z.array(z.string()).default([]),
  isEnabled: z.boolean().default(true),
});
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;
