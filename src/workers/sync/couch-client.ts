/**
 * A small client of the CouchDB replication protocol, the part Carrel needs: database info and
 * creation, single documents and attachments, `_revs_diff`, `_bulk_docs` with `new_edits: false`
 * (attachments inline or as stubs), `_bulk_get`
 * (or one GET per document where a server lacks it), `_changes` (normal and long-poll) and
 * `_local` checkpoint documents. Works against CouchDB and PouchDB Server alike; sequence values
 * are kept exactly as the server sent them (CouchDB's are strings, PouchDB Server's numbers).
 *
 * The user name and password go only to the server's own origin: every URL is built from the
 * database's base and checked before the request carries them, redirects are refused, and
 * cookies are never sent.
 */
import { z } from 'zod';
import { SyncError } from '../../core/sync/sync-errors';

export interface CouchConfig {
  serverUrl: string;
  database: string;
  username: string;
  password: string;
}

/** An opaque `_changes` sequence: whatever JSON value the server sent. */
export type ChangeSeq = string | number;

export interface RemoteDoc {
  _id: string;
  _rev: string;
  [field: string]: unknown;
}

export interface ChangesPage {
  results: { id: string; seq: ChangeSeq; changes: { rev: string }[]; deleted?: boolean }[];
  lastSeq: ChangeSeq;
}

const seqSchema = z.union([z.string(), z.number()]);
const changesSchema = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      seq: seqSchema,
      changes: z.array(z.object({ rev: z.string() })),
      deleted: z.boolean().optional(),
    }),
  ),
  last_seq: seqSchema,
});
const remoteDocSchema = z.looseObject({ _id: z.string(), _rev: z.string() });
const bulkGetSchema = z.object({
  results: z.array(
    z.object({
      id: z.string(),
      docs: z.array(z.union([z.object({ ok: remoteDocSchema }), z.object({ error: z.unknown() })])),
    }),
  ),
});
const revsDiffSchema = z.record(z.string(), z.object({ missing: z.array(z.string()).optional() }));
const bulkDocsSchema = z.array(
  z.looseObject({
    id: z.string().optional(),
    error: z.string().optional(),
    reason: z.string().optional(),
  }),
);

/** Checks a server address as typed; the error is a sentence the form shows as is. */
export function parseServerUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new SyncError(
      'invalid_config',
      'The server address is not a valid URL (e.g. https://couch.example.com).',
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new SyncError(
      'invalid_config',
      'The server address must start with https:// or http://.',
    );
  if (url.username !== '' || url.password !== '')
    throw new SyncError(
      'invalid_config',
      'Put the user name and password in their own fields, not in the address.',
    );
  if (url.search !== '' || url.hash !== '')
    throw new SyncError('invalid_config', 'The server address cannot have a query or a fragment.');
  return url;
}

/** CouchDB's rule for database names. */
export function checkDatabaseName(name: string): void {
  if (!/^[a-z][a-z0-9_$()+/-]*$/.test(name))
    throw new SyncError(
      'invalid_config',
      'The database name must start with a lowercase letter and hold only lowercase letters, digits and _$()+-/.',
    );
}

function basicAuth(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}

function encodeSeq(seq: ChangeSeq): string {
  return typeof seq === 'string' ? seq : String(seq);
}

export interface CouchClient {
  readonly origin: string;
  /** Creates the database when it does not exist yet (needs a server admin on CouchDB). */
  ensureDatabase(): Promise<void>;
  getDoc(id: string, signal?: AbortSignal): Promise<RemoteDoc | undefined>;
  /** The new revision, or a conflict when the document changed in between. */
  putDoc(id: string, body: Record<string, unknown>): Promise<{ rev: string } | 'conflict'>;
  revsDiff(revisions: Record<string, string[]>): Promise<Map<string, string[]>>;
  /**
   * Stores the documents with the revisions they carry. Returns the ids the server refused
   * because an attachment stub named bytes it does not hold; any other refusal throws.
   */
  bulkDocsNoNewEdits(docs: readonly RemoteDoc[]): Promise<string[]>;
  /** One revision of a document (attachments as stubs), or undefined when the server lacks it. */
  getRevision(id: string, rev: string): Promise<RemoteDoc | undefined>;
  /**
   * An attachment's bytes as stored, or undefined when the document or attachment is missing:
   * those of `rev` when given (undefined too when the server no longer keeps that revision's
   * attachments), else of the document's current revision.
   */
  getAttachment(
    id: string,
    name: string,
    options?: { rev?: string; signal?: AbortSignal },
  ): Promise<Uint8Array<ArrayBuffer> | undefined>;
  bulkGet(refs: readonly { id: string; rev: string }[]): Promise<RemoteDoc[]>;
  changes(options: {
    since: ChangeSeq;
    limit: number;
    longpollMs?: number;
    signal?: AbortSignal;
  }): Promise<ChangesPage>;
  getLocal(id: string): Promise<Record<string, unknown> | undefined>;
  putLocal(id: string, body: Record<string, unknown>): Promise<void>;
}

export function createCouchClient(config: CouchConfig, fetcher: typeof fetch = fetch): CouchClient {
  const server = parseServerUrl(config.serverUrl);
  checkDatabaseName(config.database);
  const origin = server.origin;
  const serverBase = server.href.endsWith('/') ? server.href : `${server.href}/`;
  const databaseBase = new URL(`${encodeURIComponent(config.database)}/`, serverBase);
  const authorization =
    config.username === '' ? undefined : basicAuth(config.username, config.password);

  function unreachable(): SyncError {
    return new SyncError(
      'offline',
      `Cannot reach the sync server at ${origin}. Check the address and the connection; the server must also allow this page's origin (CORS).`,
    );
  }

  /** A response body; a connection that breaks off while it arrives is the server being gone. */
  async function readBody<T>(read: () => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (signal?.aborted) throw error;
      throw unreachable();
    }
  }

  /** The server's response; only status 401/403 and an unreachable server are errors here. */
  async function send(
    method: string,
    path: string,
    options: {
      query?: Record<string, string>;
      body?: unknown;
      signal?: AbortSignal;
      accept?: string;
    } = {},
  ): Promise<Response> {
    const url = path === '' ? new URL(databaseBase) : new URL(path, databaseBase);
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, value);
    // The credentials were entered for this server: a URL anywhere else never gets them.
    if (url.origin !== origin)
      throw new SyncError('invalid_config', `Refusing to send sync credentials to ${url.origin}.`);
    const headers: Record<string, string> = { Accept: options.accept ?? 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (authorization !== undefined) headers.Authorization = authorization;
    let response: Response;
    try {
      response = await fetcher(url, {
        method,
        headers,
        credentials: 'omit',
        redirect: 'error',
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw unreachable();
    }
    if (response.status === 401 || response.status === 403)
      throw new SyncError(
        'unauthorized',
        `The sync server at ${origin} refused the user name or password (HTTP ${response.status}).`,
      );
    return response;
  }

  async function request(
    method: string,
    path: string,
    options: { query?: Record<string, string>; body?: unknown; signal?: AbortSignal } = {},
  ): Promise<{ status: number; json: unknown }> {
    const response = await send(method, path, options);
    const text = await readBody(() => response.text(), options.signal);
    let json: unknown = undefined;
    try {
      json = text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch {
      json = undefined;
    }
    return { status: response.status, json };
  }

  function fail(what: string, status: number, json: unknown): never {
    const reason =
      typeof json === 'object' && json !== null && 'reason' in json ? String(json.reason) : '';
    if (status === 404)
      throw new SyncError(
        'no_database',
        `The database "${config.database}" does not exist on ${origin}${reason === '' ? '' : ` (${reason})`}.`,
      );
    throw new SyncError(
      'server',
      `The sync server answered ${what} with HTTP ${status}${reason === '' ? '' : `: ${reason}`}.`,
    );
  }

  function parse<S extends z.ZodType>(schema: S, json: unknown, what: string): z.output<S> {
    const parsed = schema.safeParse(json);
    if (!parsed.success)
      throw new SyncError(
        'server',
        `The sync server's answer to ${what} is not what the CouchDB protocol says.`,
      );
    return parsed.data;
  }

  const docPath = (id: string) =>
    id.startsWith('_local/') ? `_local/${encodeURIComponent(id.slice(7))}` : encodeURIComponent(id);

  async function getOne(id: string, rev: string): Promise<RemoteDoc | undefined> {
    const { status, json } = await request('GET', docPath(id), { query: { rev, revs: 'true' } });
    if (status === 404) return undefined;
    if (status !== 200) fail(`a read of one document`, status, json);
    return parse(remoteDocSchema, json, 'a document read');
  }

  return {
    origin,

    async ensureDatabase() {
      const info = await request('GET', '');
      if (info.status === 200) return;
      if (info.status !== 404) fail('the database check', info.status, info.json);
      const created = await request('PUT', '');
      // 412: someone else created it in between.
      if (created.status !== 201 && created.status !== 202 && created.status !== 412)
        fail('the database creation', created.status, created.json);
    },

    async getDoc(id, signal) {
      const { status, json } = await request(
        'GET',
        docPath(id),
        signal === undefined ? {} : { signal },
      );
      if (status === 404) {
        const error =
          typeof json === 'object' && json !== null && 'reason' in json ? String(json.reason) : '';
        if (error === 'no_db_file' || error === 'Database does not exist.')
          fail('a document read', status, json);
        return undefined;
      }
      if (status !== 200) fail('a document read', status, json);
      return parse(remoteDocSchema, json, 'a document read');
    },

    async putDoc(id, body) {
      const { status, json } = await request('PUT', docPath(id), { body });
      if (status === 409) return 'conflict';
      if (status !== 201 && status !== 202) fail('a document write', status, json);
      return { rev: parse(z.object({ rev: z.string() }), json, 'a document write').rev };
    },

    async revsDiff(revisions) {
      if (Object.keys(revisions).length === 0) return new Map();
      const { status, json } = await request('POST', '_revs_diff', { body: revisions });
      if (status !== 200) fail('_revs_diff', status, json);
      const diff = parse(revsDiffSchema, json, '_revs_diff');
      return new Map(Object.entries(diff).map(([id, entry]) => [id, entry.missing ?? []]));
    },

    async bulkDocsNoNewEdits(docs) {
      if (docs.length === 0) return [];
      const { status, json } = await request('POST', '_bulk_docs', {
        body: { docs, new_edits: false },
      });
      if (status !== 201 && status !== 200) fail('_bulk_docs', status, json);
      const results = parse(bulkDocsSchema, json, '_bulk_docs');
      const missingStubs = results.flatMap((entry) =>
        entry.error === 'missing_stub' && entry.id !== undefined ? [entry.id] : [],
      );
      const failed = results.find(
        (entry) => entry.error !== undefined && entry.error !== 'missing_stub',
      );
      if (failed !== undefined)
        throw new SyncError(
          'server',
          `The sync server refused a document: ${failed.error}${failed.reason === undefined ? '' : ` (${failed.reason})`}.`,
        );
      return missingStubs;
    },

    getRevision: getOne,

    async getAttachment(id, name, options = {}) {
      const { rev, signal } = options;
      const response = await send('GET', `${docPath(id)}/${encodeURIComponent(name)}`, {
        accept: 'application/octet-stream',
        ...(rev === undefined ? {} : { query: { rev } }),
        ...(signal === undefined ? {} : { signal }),
      });
      if (response.status === 404) return undefined;
      if (response.status !== 200) {
        const text = await readBody(() => response.text(), signal);
        let json: unknown;
        try {
          json = JSON.parse(text) as unknown;
        } catch {
          json = undefined;
        }
        fail('an attachment read', response.status, json);
      }
      return new Uint8Array(await readBody(() => response.arrayBuffer(), signal));
    },

    async bulkGet(refs) {
      if (refs.length === 0) return [];
      const { status, json } = await request('POST', '_bulk_get', {
        query: { revs: 'true' },
        body: { docs: refs },
      });
      if (status === 200) {
        return parse(bulkGetSchema, json, '_bulk_get').results.flatMap((result) =>
          result.docs.flatMap((entry) => ('ok' in entry ? [entry.ok] : [])),
        );
      }
      // Servers without `_bulk_get` (older CouchDB) answer 400, 404 or 405: one GET per revision.
      if (status !== 400 && status !== 404 && status !== 405) fail('_bulk_get', status, json);
      const docs: RemoteDoc[] = [];
      for (const ref of refs) {
        const doc = await getOne(ref.id, ref.rev);
        if (doc !== undefined) docs.push(doc);
      }
      return docs;
    },

    async changes({ since, limit, longpollMs, signal }) {
      const query: Record<string, string> = {
        since: encodeSeq(since),
        limit: String(limit),
        style: 'all_docs',
      };
      if (longpollMs !== undefined) {
        query.feed = 'longpoll';
        query.timeout = String(longpollMs);
      }
      const { status, json } = await request('GET', '_changes', {
        query,
        ...(signal === undefined ? {} : { signal }),
      });
      if (status !== 200) fail('_changes', status, json);
      const page = parse(changesSchema, json, '_changes');
      return { results: page.results, lastSeq: page.last_seq };
    },

    async getLocal(id) {
      const { status, json } = await request('GET', docPath(`_local/${id}`));
      if (status === 404) return undefined;
      if (status !== 200) fail('a checkpoint read', status, json);
      return parse(z.looseObject({}), json, 'a checkpoint read');
    },

    async putLocal(id, body) {
      const current = await this.getLocal(id);
      const { status, json } = await request('PUT', docPath(`_local/${id}`), {
        body: { ...body, ...(current?._rev === undefined ? {} : { _rev: current._rev }) },
      });
      if (status !== 201 && status !== 200) fail('a checkpoint write', status, json);
    },
  };
}
