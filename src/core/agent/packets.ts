import { z } from 'zod';
import { citationSchema, stopReasonSchema, toolResultSchema } from '../model';

/**
 * Packets stream from the agent worker to the UI. `turnIndex` is
 * the UI block a packet belongs to (reasoning and the tool call of one step are two blocks),
 * `tabIndex` the parallel tool call within a block, `modelIndex` the model in compare mode.
 */
export const placementSchema = z.object({
  turnIndex: z.number().int().nonnegative(),
  tabIndex: z.number().int().nonnegative(),
  modelIndex: z.number().int().nonnegative(),
});
export type Placement = z.infer<typeof placementSchema>;

export const packetObjSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('message_start'),
    userMessageId: z.string(),
    assistantMessageId: z.string(),
    sessionId: z.string(),
  }),
  z.object({ type: z.literal('message_delta'), text: z.string() }),
  z.object({ type: z.literal('reasoning_start') }),
  z.object({ type: z.literal('reasoning_delta'), text: z.string() }),
  z.object({ type: z.literal('tool_call_start'), toolCallId: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool_call_delta'), toolCallId: z.string(), argumentsDelta: z.string() }),
  z.object({
    type: z.literal('tool_result'),
    toolCallId: z.string(),
    status: z.enum(['complete', 'error', 'cancelled']),
    result: toolResultSchema,
  }),
  z.object({ type: z.literal('citation'), citation: citationSchema }),
  z.object({ type: z.literal('section_end') }),
  z.object({ type: z.literal('error'), code: z.string(), message: z.string() }),
  /** Something the person should know that did not stop the answer, e.g. a tool server that is down. */
  z.object({ type: z.literal('warning'), message: z.string() }),
  /** The end of one model's answer. */
  z.object({ type: z.literal('stop'), reason: stopReasonSchema }),
  /** The end of the whole turn, after every model stopped and everything was saved. */
  z.object({ type: z.literal('overall_stop'), reason: stopReasonSchema }),
]);
export type PacketObj = z.infer<typeof packetObjSchema>;

export const packetSchema = z.object({ placement: placementSchema, obj: packetObjSchema });
export type Packet = z.infer<typeof packetSchema>;
