import type { connectMcpServer, McpConnection } from './mcp-client';
import type { McpServerConfig } from './mcp-server-config';

export interface McpConnectionPool {
  /** An open connection for this server, reused while its URL and headers stay the same. */
  get(config: McpServerConfig, signal?: AbortSignal): Promise<McpConnection>;
  /** Drops a connection that failed, so the next turn reconnects. */
  evict(serverId: string): Promise<void>;
  closeAll(): Promise<void>;
}

/**
 * The MCP client (the SDK and its JSON Schema validators) is fetched when a first server is
 * connected, not when the agent worker starts: most people use no MCP server.
 */
const connectWhenFirstUsed: typeof connectMcpServer = async (config, options) =>
  (await import('./mcp-client')).connectMcpServer(config, options);

/**
 * Keeps one MCP connection per server for the worker's lifetime: connecting costs an
 * initialize round trip, which every turn would otherwise pay. A changed URL or header (the
 * user edited the server) opens a new connection.
 */
export function createMcpConnectionPool(
  connect: typeof connectMcpServer = connectWhenFirstUsed,
): McpConnectionPool {
  const open = new Map<string, { key: string; connection: Promise<McpConnection> }>();

  async function evict(serverId: string): Promise<void> {
    const entry = open.get(serverId);
    open.delete(serverId);
    if (!entry) return;
    try {
      await (await entry.connection).close();
    } catch {
      // A connection that never opened or already broke has nothing left to close.
    }
  }

  return {
    async get(config, signal) {
      const key = JSON.stringify([config.url, config.headers]);
      const entry = open.get(config.id);
      if (entry && entry.key === key) {
        // The config object may have changed in other ways (allowed tools): use the new one.
        const connection = await entry.connection;
        return { ...connection, config };
      }
      if (entry) await evict(config.id);
      const connection = connect(config, signal ? { signal } : {});
      open.set(config.id, { key, connection });
      try {
        return await connection;
      } catch (error) {
        open.delete(config.id);
        throw error;
      }
    },
    evict,
    async closeAll() {
      await Promise.all([...open.keys()].map((serverId) => evict(serverId)));
    },
  };
}
