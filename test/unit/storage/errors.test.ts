import { Dexie, type DBCore, type DBCoreMutateRequest } from 'dexie';
import { describe, expect, it } from 'vitest';
import { asMessageId, asSessionId } from '../../../src/core/model';
import { CarrelDb } from '../../../src/storage/db';
import { StorageError, toStorageError } from '../../../src/storage/errors';
import { createMessageStore } from '../../../src/storage/message.store';
import { createSessionStore } from '../../../src/storage/session.store';
import {
  buildAssistantMessage,
  buildSession,
  buildUserMessage,
  createFrozenClock,
  createTestIndexedDb,
} from './storage-fixtures';

const quotaError = () => new DOMException('The quota has been exceeded.', 'QuotaExceededError');

describe('toStorageError', () => {
  it('maps a bare QuotaExceededError to quota_exceeded with a message a person understands', () => {
    const error = toStorageError(quotaError());
    expect(error).toBeInstanceOf(StorageError);
    expect(error.code).toBe('quota_exceeded');
    expect(error.message).toMatch(/storage for Carrel is full/);
  });

  it('sees the QuotaExceededError inside the AbortError Dexie reports for an aborted transaction', () => {
    expect(toStorageError(new Dexie.AbortError('Transaction aborted', quotaError())).code).toBe(
      'quota_exceeded',
    );
  });

  it('finds a quota failure among the failures of a bulk write', () => {
    expect(toStorageError(new Dexie.BulkError('1 of 2 failed', { 1: quotaError() })).code).toBe(
      'quota_exceeded',
    );
  });

  it('maps read-only, version and blocked failures to their own codes', () => {
    expect(toStorageError(new Dexie.ReadOnlyError('read only')).code).toBe('read_only');
    expect(toStorageError(new Dexie.VersionChangeError('changed')).code).toBe('version_change');
    expect(
      toStorageError(new Dexie.DatabaseClosedError(new Dexie.VersionChangeError('changed'))).code,
    ).toBe('version_change');
    expect(toStorageError(new DOMException('blocked', 'BlockedError')).code).toBe('blocked');
  });

  it('keeps an unknown failure as unknown with its original message and cause', () => {
    const cause = new Error('disk on fire');
    const error = toStorageError(cause);
    expect(error.code).toBe('unknown');
    expect(error.message).toContain('disk on fire');
    expect(error.cause).toBe(cause);
  });
});

/** A database whose message writes fail while `failure` is set, like a full disk would. */
async function openFailingDb(options: { shouldCloseOnFailure: boolean }) {
  const db = new CarrelDb('failing', createTestIndexedDb());
  const control: { failure: (() => Error) | null } = { failure: null };
  db.use({
    stack: 'dbcore',
    name: 'inject-write-failure',
    create: (down: DBCore): DBCore => ({
      ...down,
      table: (name) => {
        const table = down.table(name);
        return {
          ...table,
          mutate: (request: DBCoreMutateRequest) => {
            if (name === 'messages' && control.failure !== null) {
              if (options.shouldCloseOnFailure) db.close();
              return Promise.reject(control.failure());
            }
            return table.mutate(request);
          },
        };
      },
    }),
  });
  await db.open();
  const clock = createFrozenClock();
  await createSessionStore(db, clock).create(buildSession());
  return {
    db,
    control,
    sessions: createSessionStore(db, clock),
    messages: createMessageStore(db, clock),
  };
}

describe('write failures', () => {
  it('surfaces a full disk on a message write as quota_exceeded and keeps what was already saved', async () => {
    const { control, sessions, messages } = await openFailingDb({ shouldCloseOnFailure: false });
    await messages.put(buildUserMessage('u1', null));
    const versionBefore = (await sessions.get(asSessionId('s1')))?.version;
    control.failure = () => new Dexie.AbortError('Transaction aborted', quotaError());

    await expect(messages.put(buildAssistantMessage('a1', 'u1'))).rejects.toMatchObject({
      name: 'StorageError',
      code: 'quota_exceeded',
    });

    expect(await messages.get(asMessageId('u1'))).toMatchObject({ text: 'question u1' });
    expect(await messages.get(asMessageId('a1'))).toBeUndefined();
    // The session's version bump was in the same transaction, so it rolled back too.
    expect((await sessions.get(asSessionId('s1')))?.version).toBe(versionBefore);
  });

  it('reopens a database the failure left closed so the next write can succeed', async () => {
    const { db, control, messages } = await openFailingDb({ shouldCloseOnFailure: true });
    control.failure = quotaError;

    await expect(messages.put(buildUserMessage('u1', null))).rejects.toMatchObject({
      code: 'quota_exceeded',
    });

    expect(db.isOpen()).toBe(true);
    control.failure = null;
    await messages.put(buildUserMessage('u1', null));
    expect(await messages.get(asMessageId('u1'))).toBeDefined();
  });

  it('surfaces a read-only failure as read_only', async () => {
    const { control, messages } = await openFailingDb({ shouldCloseOnFailure: false });
    control.failure = () => new Dexie.ReadOnlyError('read only');
    await expect(messages.put(buildUserMessage('u1', null))).rejects.toMatchObject({
      code: 'read_only',
    });
  });
});
