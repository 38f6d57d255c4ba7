import { createMemoryChatStores } from '../../../src/storage/memory-chat.store';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import { createSummaryStore } from '../../../src/storage/summary.store';
import { createUsageStore } from '../../../src/storage/usage.store';
import { describeChatStoresContract } from './chat-stores.contract';
import { createSequentialIds, openTestDb } from './storage-fixtures';

describeChatStoresContract('IndexedDB', async (clock, ids = createSequentialIds()) => {
  const db = await openTestDb();
  return {
    sessions: createSessionStore(db, clock),
    messages: createMessageStore(db, clock),
    summaries: createSummaryStore(db),
    usage: createUsageStore(db, clock, ids),
  };
});

describeChatStoresContract('in memory (temporary chats)', (clock, ids = createSequentialIds()) =>
  Promise.resolve(createMemoryChatStores(clock, ids)),
);
