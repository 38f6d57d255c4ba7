import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Packet } from '../../../../src/core/agent/packets';
import {
  createAnswerRelay,
  RunFollower,
  type FollowEvent,
  type RelayMessage,
} from '../../../../src/workers/agent/answer-relay';
import { createManualRelayChannel } from '../../../fakes/manual-relay-channel';

const SESSION = 'session-1';
const RUN = 'run-1';
const at = { turnIndex: 0, tabIndex: 0, modelIndex: 0 };

const start: Packet = {
  placement: at,
  obj: { type: 'message_start', sessionId: SESSION, userMessageId: 'q1', assistantMessageId: 'a1' },
};
const delta = (text: string): Packet => ({ placement: at, obj: { type: 'message_delta', text } });

/** The answer text a follower shows after these events. */
function shownText(events: FollowEvent[]): string {
  let text = '';
  for (const event of events) {
    if (event.kind === 'end') continue;
    if (event.kind === 'reset') text = '';
    for (const packet of event.packets) if (packet.obj.type === 'message_delta') text += packet.obj.text;
  }
  return text;
}

describe('the answer relay between tabs', () => {
  it('shows a tab that joins mid-stream the whole answer exactly once, wherever it joins and the snapshot lands', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        fc.nat(),
        (batchTexts, joinSeed, answerSeed) => {
          const { channel, posted, deliverToHost } = createManualRelayChannel();
          const relay = createAnswerRelay(channel, () => undefined);
          const batches: Packet[][] = batchTexts.map((texts, index) => [...(index === 0 ? [start] : []), ...texts.map(delta)]);
          // The tab joins after `joined` batches were posted; the host answers its request
          // after `answered` batches (never before it was asked).
          const joined = joinSeed % (batches.length + 1);
          const answered = joined + (answerSeed % (batches.length - joined + 1));
          let heardFrom = 0;
          for (let index = 0; index <= batches.length; index++) {
            // From here on the tab hears what is posted.
            if (index === joined) heardFrom = posted.length;
            if (index === answered) deliverToHost({ kind: 'sync', sessionId: SESSION });
            const batch = batches[index];
            if (batch) relay.publish(RUN, batch);
          }
          relay.end(RUN);
          const follower = new RunFollower(SESSION, () => undefined);
          const events = posted.slice(heardFrom).flatMap((message) => follower.receive(message) ?? []);

          const expected = batchTexts.flat().join('');
          expect(shownText(events)).toBe(expected);
          expect(events.at(-1)).toEqual({ kind: 'end', runId: RUN, isCutOff: false });
        },
      ),
    );
  });

  it('asks for the run so far once when a batch is missed, and shows nothing out of order meanwhile', () => {
    let requests = 0;
    const follower = new RunFollower(SESSION, () => requests++);
    const batch = (seq: number, text: string): RelayMessage => ({ kind: 'packets', sessionId: SESSION, runId: RUN, seq, packets: [delta(text)] });
    expect(follower.receive({ kind: 'packets', sessionId: SESSION, runId: RUN, seq: 1, packets: [start, delta('a')] })?.kind).toBe('reset');
    expect(follower.receive(batch(3, 'c'))).toBeNull();
    expect(follower.receive(batch(4, 'd'))).toBeNull();
    expect(requests).toBe(1);
    const reset = follower.receive({ kind: 'snapshot', sessionId: SESSION, runId: RUN, seq: 4, packets: [start, delta('a'), delta('b'), delta('c'), delta('d')] });
    expect(shownText(reset ? [reset] : [])).toBe('abcd');
    expect(follower.receive(batch(4, 'd'))).toBeNull();
    expect(follower.receive(batch(5, 'e'))?.kind).toBe('packets');
    // A snapshot asked for by another tab, older than what is shown, changes nothing.
    expect(follower.receive({ kind: 'snapshot', sessionId: SESSION, runId: RUN, seq: 4, packets: [start] })).toBeNull();
  });

  it('ignores other chats and says a run was cut off when its tab went away', () => {
    const follower = new RunFollower(SESSION, () => undefined);
    expect(follower.receive({ kind: 'packets', sessionId: 'other', runId: 'run-2', seq: 1, packets: [delta('x')] })).toBeNull();
    follower.receive({ kind: 'packets', sessionId: SESSION, runId: RUN, seq: 1, packets: [start] });
    expect(follower.cutOff(RUN)).toEqual({ kind: 'end', runId: RUN, isCutOff: true });
    expect(follower.receive({ kind: 'end', sessionId: SESSION, runId: RUN })).toBeNull();
  });

  it('passes a stop request for a chat to the host, and answers no request for a chat it does not run', () => {
    const { channel, posted, deliverToHost } = createManualRelayChannel();
    const stopped: string[] = [];
    createAnswerRelay(channel, (sessionId) => stopped.push(sessionId));
    deliverToHost({ kind: 'stop', sessionId: SESSION });
    deliverToHost({ kind: 'sync', sessionId: SESSION });
    expect(stopped).toEqual([SESSION]);
    expect(posted).toEqual([]);
  });
});
