import { z } from 'zod';

/** Branded ids keep a SessionId from being passed where a MessageId is expected. */
export const sessionIdSchema = z.string().min(1).brand<'SessionId'>();
export const messageIdSchema = z.string().min(1).brand<'MessageId'>();
export const projectIdSchema = z.string().min(1).brand<'ProjectId'>();
export const fileIdSchema = z.string().min(1).brand<'FileId'>();
export const agentIdSchema = z.string().min(1).brand<'AgentId'>();
export const providerIdSchema = z.string().min(1).brand<'ProviderId'>();

export type SessionId = z.infer<typeof sessionIdSchema>;
export type MessageId = z.infer<typeof messageIdSchema>;
export type ProjectId = z.infer<typeof projectIdSchema>;
export type FileId = z.infer<typeof fileIdSchema>;
export type AgentId = z.infer<typeof agentIdSchema>;
export type ProviderId = z.infer<typeof providerIdSchema>;

export const asSessionId = (id: string): SessionId => id as SessionId;
export const asMessageId = (id: string): MessageId => id as MessageId;
export const asProjectId = (id: string): ProjectId => id as ProjectId;
export const asFileId = (id: string): FileId => id as FileId;
export const asAgentId = (id: string): AgentId => id as AgentId;
export const asProviderId = (id: string): ProviderId => id as ProviderId;
