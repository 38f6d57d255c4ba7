/**
 * One push and one pull over the CouchDB protocol, in batches, between the sync records of this
 * device (`storage/sync`) and a server database. Bodies are encrypted before they leave and
 * decrypted after they arrive, outside any IndexedDB transaction.
 *
 * Push: pending records → `_revs_diff` → `_bulk_docs` with `new_edits: false` (Carrel makes its
 * own revisions) → pending flags cleared for the revisions the server now holds.
 * Pull: `_changes` since the checkpoint → revisions this device lacks → `_bulk_get` → decrypt,
 * check, and for each record: adopt (new or descendant), ignore (known), or merge field by field
 * (concurrent; the merge gets a revision derived from its parents and content, so every device
 * merging the same two versions makes the same revision) → applied in one transaction →
 * checkpoint saved here and in a `_local` document on the server.
 *
 * A file's bytes travel as the attachment `bytes` of its document, encrypted: sent once with the
 * revision that first carries that content (alone in its request, as they may be large), named
 * by a stub in the revisions after it. A pull records the stub; the bytes themselves are fetched
 * only when something on that device asks for them (`fetchFileBytes`).
 */
import { z } from 'zod';
import {
  canonicalJson,
  compareVersions,
  isSameContent,
  mergeAncestors,
  mergeVersions,
  recordVersionSchema,
  revisionGeneration,
  revisionHash,
  type RecordVersion,
} from '../../core/sync/record-version';
import {
  contentRevisionHash,
  decryptBody,
  encryptBody,
  encryptBytes,
  remoteDocId,
  toBase64,
  type SyncKeys,
} from '../../core/sync/sync-crypto';
import { SyncError } from '../../core/sync/sync-errors';
import type { SyncProgress } from '../../core/sync/sync-settings';
import type {
  IncomingResolution,
  LocalVersion,
  OutgoingRecord,
  SyncStore,
} from '../../storage/sync/sync.store';
import type { SyncAttachment } from '../../storage/sync/change-tracking';
import { SYNCED_TABLES, syncRecordKey, withoutSecrets } from '../../storage/sync/synced-tables';
import type { ChangeSeq, CouchClient, RemoteDoc } from './couch-client';

export const PUSH_BATCH_SIZE = 100;
export const PULL_BATCH_SIZE = 100;
/** Times a pull batch is decided again when local edits keep landing on the same records. */
const MAX_STALE_RETRIES = 5;

/** What a record document holds once decrypted. */
export const recordPayloadSchema = recordVersionSchema.omit({ rev: true }).extend({
  format: z.literal('carrel-record'),
  table: z.enum(SYNCED_TABLES),
  id: z.string().min(1),
});
export type RecordPayload = z.infer<typeof recordPayloadSchema>;

/** The one attachment a file's document may carry: its bytes, encrypted. */
export const BYTES_ATTACHMENT = 'bytes';
const BYTES_CONTENT_TYPE = 'application/octet-stream';

const attachmentStubSchema = z.object({
  digest: z.string(),
  revpos: z.number().int().positive(),
  length: z.number().int().nonnegative(),
});

const sealedDocSchema = z.object({
  _id: z.string(),
  _rev: z.string(),
  carrel: z.literal(1),
  iv: z.string(),
  data: z.string(),
  _attachments: z.record(z.string(), z.unknown()).optional(),
});

/** The bytes attachment a server document names, if any. */
function readAttachmentStub(
  attachments: Record<string, unknown> | undefined,
): z.infer<typeof attachmentStubSchema> | undefined {
  const parsed = attachmentStubSchema.safeParse(attachments?.[BYTES_ATTACHMENT]);
  return parsed.success ? parsed.data : undefined;
}

/** Record documents are the HMAC ids `remoteDocId` makes; the key-info and design docs are not. */
export function isRecordDocId(id: string): boolean {
  return /^r[0-9a-f]{64}$/.test(id);
}

export interface ReplicationContext {
  store: SyncStore;
  client: CouchClient;
  keys: SyncKeys;
  now: () => number;
  /** Off unless the person turned key sync on: providers then travel without their keys. */
  shouldSyncKeys: boolean;
}

export type ReplicationProgress = SyncProgress;

/** `_revisions` for a new edit: its own hash and, when it is the next generation, its parent's. */
function revisionsOf(rev: string, ancestors: readonly string[]): { start: number; ids: string[] } {
  const generation = revisionGeneration(rev);
  const parent = ancestors.find((ancestor) => revisionGeneration(ancestor) === generation - 1);
  return {
    start: generation,
    ids: parent === undefined ? [revisionHash(rev)] : [revisionHash(rev), revisionHash(parent)],
  };
}

function toPayload(record: OutgoingRecord, shouldSyncKeys: boolean): RecordPayload {
  const { body, stamps } = shouldSyncKeys
    ? { body: record.body, stamps: record.stamps }
    : withoutSecrets(record.table, record.body, record.stamps);
  return {
    format: 'carrel-record',
    table: record.table,
    id: record.id,
    ancestors: record.ancestors,
    isDeleted: record.isDeleted,
    body,
    stamps,
    device: record.device,
    changedAt: record.changedAt,
  };
}

/** How a record's document carries the file's bytes: none, a stub naming bytes sent before, or the bytes. */
type BytesPlan =
  | { kind: 'none' }
  | { kind: 'stub'; attachment: SyncAttachment }
  | { kind: 'upload'; hash: string; blob: Blob };

function planBytes(record: OutgoingRecord): BytesPlan {
  if (record.table !== 'files' || record.isDeleted) return { kind: 'none' };
  const hash = record.body.hash;
  if (typeof hash !== 'string') return { kind: 'none' };
  if (record.attachment?.hash === hash) return { kind: 'stub', attachment: record.attachment };
  // A device that has not fetched the bytes of this content cannot send them (nor name them).
  if (record.blob === undefined) return { kind: 'none' };
  return { kind: 'upload', hash, blob: record.blob };
}

async function sealDoc(
  context: ReplicationContext,
  record: OutgoingRecord,
  docId: string,
  bytes: BytesPlan,
): Promise<RemoteDoc> {
  const sealed = await encryptBody(
    context.keys,
    docId,
    record.rev,
    toPayload(record, context.shouldSyncKeys),
  );
  const doc: RemoteDoc = {
    _id: docId,
    _rev: record.rev,
    _revisions: revisionsOf(record.rev, record.ancestors),
    carrel: 1,
    iv: sealed.iv,
    data: sealed.data,
  };
  if (bytes.kind === 'stub') {
    doc._attachments = {
      [BYTES_ATTACHMENT]: {
        stub: true,
        content_type: BYTES_CONTENT_TYPE,
        digest: bytes.attachment.digest,
        revpos: bytes.attachment.revpos,
        length: bytes.attachment.length,
      },
    };
  } else if (bytes.kind === 'upload') {
    const plain = new Uint8Array(await bytes.blob.arrayBuffer());
    const sealedBytes = await encryptBytes(context.keys, docId, bytes.hash, plain);
    doc._attachments = {
      [BYTES_ATTACHMENT]: { content_type: BYTES_CONTENT_TYPE, data: toBase64(sealedBytes) },
    };
  }
  return doc;
}

/** The stub the server made for bytes just sent: read back, since only it knows the digest. */
async function readUploadedAttachment(
  context: ReplicationContext,
  docId: string,
  rev: string,
  hash: string,
): Promise<SyncAttachment | undefined> {
  const stored = await context.client.getRevision(docId, rev);
  const stub = readAttachmentStub(stored?._attachments as Record<string, unknown> | undefined);
  return stub === undefined ? undefined : { hash, rev, ...stub };
}

/** Sends every pending record; returns how many went. */
export async function pushChanges(
  context: ReplicationContext,
  onProgress: (progress: ReplicationProgress) => void = () => undefined,
): Promise<number> {
  let pushed = 0;
  for (;;) {
    const batch = await context.store.listPending(PUSH_BATCH_SIZE);
    if (batch.length === 0) return pushed;
    const prepared = await Promise.all(
      batch.map(async (record) => ({
        record,
        docId: record.docId ?? (await remoteDocId(context.keys, record.table, record.id)),
        bytes: planBytes(record),
      })),
    );
    const missing = await context.client.revsDiff(
      Object.fromEntries(prepared.map(({ record, docId }) => [docId, [record.rev]])),
    );
    const toSend = prepared.filter(
      ({ record, docId }) => missing.get(docId)?.includes(record.rev) ?? false,
    );
    // Records without bytes go together; each file's bytes go in a request of their own.
    const plain = toSend.filter(({ bytes }) => bytes.kind !== 'upload');
    const refused = new Set(
      await context.client.bulkDocsNoNewEdits(
        await Promise.all(
          plain.map(({ record, docId, bytes }) => sealDoc(context, record, docId, bytes)),
        ),
      ),
    );
    const uploaded = new Map<string, SyncAttachment>();
    for (const { record, docId, bytes } of toSend) {
      if (bytes.kind !== 'upload') continue;
      const stubless = await context.client.bulkDocsNoNewEdits([
        await sealDoc(context, record, docId, bytes),
      ]);
      stubless.forEach((id) => refused.add(id));
      const attachment = await readUploadedAttachment(context, docId, record.rev, bytes.hash);
      if (attachment !== undefined) uploaded.set(record.key, attachment);
    }
    // A stub the server cannot resolve (it lost or never had those bytes): forget it, so the
    // next round sends the bytes where this device has them.
    const stale = prepared.filter(({ docId }) => refused.has(docId));
    if (stale.length > 0)
      await context.store.forgetAttachments(stale.map(({ record }) => record.key));
    await context.store.markPushed(
      prepared
        .filter(({ docId }) => !refused.has(docId))
        .map(({ record, docId, bytes }) => {
          // The revision just sent carries the bytes too, by their stub: the newest to fetch from.
          const attachment =
            uploaded.get(record.key) ??
            (bytes.kind === 'stub' ? { ...bytes.attachment, rev: record.rev } : undefined);
          return {
            key: record.key,
            rev: record.rev,
            docId,
            ...(attachment === undefined ? {} : { attachment }),
          };
        }),
    );
    pushed += batch.length - stale.length;
    onProgress({ phase: 'push', done: pushed });
    // Everything in the batch was edited again while it went: the next round sends the edits.
  }
}

interface IncomingVersion {
  docId: string;
  payload: RecordPayload;
  version: RecordVersion;
  /** The file bytes this revision's document carries: the content its body names. */
  attachment?: SyncAttachment;
}

async function openDoc(context: ReplicationContext, doc: RemoteDoc): Promise<IncomingVersion> {
  const sealed = sealedDocSchema.safeParse(doc);
  if (!sealed.success)
    throw new SyncError(
      'tampered',
      `Document ${doc._id} on the server is not an encrypted Carrel record.`,
    );
  const opened = recordPayloadSchema.safeParse(
    await decryptBody(context.keys, doc._id, doc._rev, {
      iv: sealed.data.iv,
      data: sealed.data.data,
    }),
  );
  if (!opened.success)
    throw new SyncError(
      'tampered',
      `Document ${doc._id} decrypts to a record this version of Carrel cannot read.`,
    );
  const payload = opened.data;
  // The body names its table and id; the document id must be their HMAC, or it was moved.
  if ((await remoteDocId(context.keys, payload.table, payload.id)) !== doc._id)
    throw new SyncError(
      'tampered',
      `Document ${doc._id} holds a record that belongs under another id.`,
    );
  const version: RecordVersion = {
    rev: doc._rev,
    ancestors: payload.ancestors,
    isDeleted: payload.isDeleted,
    body: payload.isDeleted ? {} : payload.body,
    stamps: payload.stamps,
    device: payload.device,
    changedAt: payload.changedAt,
  };
  const stub = readAttachmentStub(sealed.data._attachments);
  const hash = payload.body.hash;
  const attachment =
    payload.table === 'files' && stub !== undefined && typeof hash === 'string'
      ? { hash, rev: doc._rev, ...stub }
      : undefined;
  return { docId: doc._id, payload, version, ...(attachment === undefined ? {} : { attachment }) };
}

/** The bytes on the server that hold `version`'s content, among what is known of them. */
function findAttachment(
  version: RecordVersion,
  known: readonly (SyncAttachment | undefined)[],
): SyncAttachment | undefined {
  const hash = version.body.hash;
  return known.find((attachment) => attachment !== undefined && attachment.hash === hash);
}

/** The revision of a merge: every device merging the same parents into the same content agrees. */
async function mergedRevision(
  a: RecordVersion,
  b: RecordVersion,
  content: unknown,
): Promise<string> {
  const generation = Math.max(revisionGeneration(a.rev), revisionGeneration(b.rev)) + 1;
  const parents = [a.rev, b.rev].sort();
  return `${generation}-${await contentRevisionHash(canonicalJson({ parents, content }))}`;
}

/** Decides what each record becomes, given what this device holds and what arrived. */
export async function resolveIncoming(
  locals: ReadonlyMap<string, LocalVersion>,
  incoming: readonly IncomingVersion[],
): Promise<IncomingResolution[]> {
  const byKey = new Map<string, IncomingVersion[]>();
  for (const item of incoming) {
    const key = syncRecordKey(item.payload.table, item.payload.id);
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  const resolutions: IncomingResolution[] = [];
  for (const [key, items] of byKey) {
    const first = items[0] as IncomingVersion;
    const local = locals.get(key);
    let current: RecordVersion | undefined = local;
    let isPending = local?.isPending ?? false;
    let isChanged = false;
    const losers: RecordVersion[] = [];
    // Descendants first, so a branch's newest version is merged once instead of each of its steps.
    const ordered = [...items].sort(
      (a, b) =>
        revisionGeneration(b.version.rev) - revisionGeneration(a.version.rev) ||
        (a.version.rev < b.version.rev ? -1 : 1),
    );
    for (const { version } of ordered) {
      if (current === undefined) {
        current = version;
        isPending = false;
        isChanged = true;
        continue;
      }
      const verdict = compareVersions(current, version);
      if (verdict === 'known') continue;
      if (verdict === 'fast_forward') {
        current = version;
        isPending = false;
        isChanged = true;
        continue;
      }
      const merged = mergeVersions(current, version);
      if (!isSameContent(current, merged)) losers.push(current);
      if (!isSameContent(version, merged)) losers.push(version);
      current = {
        ...merged,
        rev: await mergedRevision(current, version, merged),
        ancestors: mergeAncestors(current, version),
      };
      isPending = true;
      isChanged = true;
    }
    if (!isChanged || current === undefined) continue;
    const attachment = findAttachment(current, [
      ...ordered.map((item) => item.attachment),
      local?.attachment,
    ]);
    resolutions.push({
      key,
      table: first.payload.table,
      id: first.payload.id,
      docId: first.docId,
      expectedRev: local?.rev ?? null,
      version: current,
      isPending,
      losers,
      ...(attachment === undefined ? {} : { attachment }),
    });
  }
  return resolutions;
}

export interface PullReport {
  pulled: number;
  lastSeq: ChangeSeq;
  /** Records that arrived but could not be stored, in words. */
  invalid: string[];
}

/**
 * Pulls every change after `since`, batch by batch, saving the checkpoint after each. With
 * `longpollMs` the first request waits for a change (live sync); the rest do not.
 */
export async function pullChanges(
  context: ReplicationContext,
  since: ChangeSeq,
  saveCheckpoint: (seq: ChangeSeq) => Promise<void>,
  options: {
    longpollMs?: number;
    signal?: AbortSignal;
    onProgress?: (progress: ReplicationProgress) => void;
  } = {},
): Promise<PullReport> {
  const report: PullReport = { pulled: 0, lastSeq: since, invalid: [] };
  let isFirst = true;
  for (;;) {
    const page = await context.client.changes({
      since: report.lastSeq,
      limit: PULL_BATCH_SIZE,
      ...(isFirst && options.longpollMs !== undefined ? { longpollMs: options.longpollMs } : {}),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    isFirst = false;
    const results = page.results.filter((result) => isRecordDocId(result.id));
    for (let attempt = 0; ; attempt++) {
      const known = await context.store.findKnownRevisions(results.map((result) => result.id));
      const wanted = results.flatMap((result) => {
        const mine = known.get(result.id);
        return result.changes
          .filter(
            ({ rev }) => mine === undefined || (mine.rev !== rev && !mine.ancestors.includes(rev)),
          )
          .map(({ rev }) => ({ id: result.id, rev }));
      });
      const docs = await context.client.bulkGet(wanted);
      const incoming = await Promise.all(docs.map((doc) => openDoc(context, doc)));
      const locals = await context.store.readLocalVersions(
        incoming.map((item) => syncRecordKey(item.payload.table, item.payload.id)),
      );
      const resolutions = await resolveIncoming(locals, incoming);
      const applied = await context.store.applyIncoming(resolutions, context.now());
      report.invalid.push(...applied.invalid);
      report.pulled += applied.applied;
      if (applied.stale.length === 0) break;
      if (attempt >= MAX_STALE_RETRIES)
        throw new SyncError(
          'server',
          'Records kept changing on this device while they arrived; sync will try again.',
        );
    }
    report.lastSeq = page.lastSeq;
    await saveCheckpoint(page.lastSeq);
    options.onProgress?.({ phase: 'pull', done: report.pulled });
    if (page.results.length < PULL_BATCH_SIZE) return report;
  }
}
