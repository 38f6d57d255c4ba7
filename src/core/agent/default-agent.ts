// The factory is pure data and lives with the Agent schema, so the UI can show the built-in
// agent without importing the agent runtime; re-exported here for the loop's callers.
export { DEFAULT_AGENT_ID, createDefaultAgent } from '../model/agent';
