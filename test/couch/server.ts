/**
 * A real CouchDB-protocol server for sync tests: PouchDB Server's express-pouchdb on PouchDB's
 * in-memory adapter, on a loopback port the system picks, with the CORS headers a browser needs
 * (the app is served from another port) and optional basic-auth credentials it checks.
 */
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const require = createRequire(import.meta.url);

type Next = (error?: unknown) => void;
type Handler = (request: IncomingMessage, response: ServerResponse, next: Next) => void;
interface ExpressApp {
  use(path: string | Handler, handler?: Handler): void;
  listen(port: number, host: string, ready: () => void): Server;
}

export interface CouchServer {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  /**
   * Every stored revision of every document in `database`, as the server keeps it (JSON text),
   * and each document's attachments' bytes.
   */
  readStoredText(database: string): Promise<string>;
  /** How many requests carried an Authorization header, and from which Origin headers. */
  requests: { path: string; hasAuthorization: boolean }[];
  /** The server's `update_seq` for `database`: it moves on with every write, of any kind. */
  readUpdateSeq(database: string): Promise<unknown>;
  /**
   * Unreachable, as a device that lost its network sees it: the port stops listening (new
   * connections are refused) and open ones, long polls included, are cut. The data stays.
   */
  goOffline(): Promise<void>;
  /** Listening again on the same port, with the same data. */
  goOnline(): Promise<void>;
  close(): Promise<void>;
}

let memoryCounter = 0;

export async function startCouchServer(
  options: { username?: string; password?: string } = {},
): Promise<CouchServer> {
  const express = require('express') as () => ExpressApp;
  type PouchPlugin = { plugin(module: unknown): PouchPlugin; defaults(options: object): unknown };
  const PouchDB = (require('pouchdb-core') as PouchPlugin)
    .plugin(require('pouchdb-adapter-memory'))
    .plugin(require('pouchdb-mapreduce'))
    .plugin(require('pouchdb-replication'));
  const expressPouchDb = require('express-pouchdb') as (pouch: unknown, options: object) => Handler;
  // Each server gets its own database names' prefix, so two servers in one process never share.
  memoryCounter += 1;
  const prefix = `couch-${process.pid}-${memoryCounter}-`;
  const Pouch = PouchDB.defaults({ adapter: 'memory', prefix });

  const app = express();
  const requests: CouchServer['requests'] = [];
  const expected =
    options.username === undefined
      ? undefined
      : `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
  app.use((request, response, next) => {
    const origin = request.headers.origin;
    response.setHeader('Access-Control-Allow-Origin', origin ?? '*');
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Access-Control-Allow-Methods', 'GET, PUT, POST, DELETE, HEAD, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, Accept');
    response.setHeader('Vary', 'Origin');
    if (request.method === 'OPTIONS') {
      response.statusCode = 204;
      response.end();
      return;
    }
    requests.push({
      path: request.url ?? '',
      hasAuthorization: request.headers.authorization !== undefined,
    });
    if (expected !== undefined && request.headers.authorization !== expected) {
      response.statusCode = 401;
      response.setHeader('Content-Type', 'application/json');
      response.end(
        JSON.stringify({ error: 'unauthorized', reason: 'Name or password is incorrect.' }),
      );
      return;
    }
    next();
  });
  app.use('/', expressPouchDb(Pouch, { mode: 'minimumForPouchDB', inMemoryConfig: true }));
  const server = await new Promise<Server>((resolve) => {
    const listening: Server = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const port = (server.address() as AddressInfo).port;
  let isListening = true;
  const stopListening = () =>
    new Promise<void>((resolve, reject) => {
      if (!isListening) {
        resolve();
        return;
      }
      isListening = false;
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  const url = `http://127.0.0.1:${port}`;
  const authHeaders: Record<string, string> =
    expected === undefined ? {} : { Authorization: expected };

  return {
    url,
    port,
    requests,
    async readStoredText(database) {
      const all = (await (
        await fetch(`${url}/${database}/_all_docs`, { headers: authHeaders })
      ).json()) as { rows: { id: string }[] };
      const texts: string[] = [];
      for (const row of all.rows) {
        const response = await fetch(
          `${url}/${database}/${encodeURIComponent(row.id)}?open_revs=all&revs=true`,
          { headers: { ...authHeaders, Accept: 'application/json' } },
        );
        const text = await response.text();
        texts.push(text);
        // Attachments as stored, byte for byte (as Latin-1, so any plaintext would show).
        const names = new Set<string>();
        for (const entry of JSON.parse(text) as { ok?: { _attachments?: object } }[])
          for (const name of Object.keys(entry.ok?._attachments ?? {})) names.add(name);
        for (const name of names) {
          const attachment = await fetch(
            `${url}/${database}/${encodeURIComponent(row.id)}/${encodeURIComponent(name)}`,
            { headers: authHeaders },
          );
          texts.push(Buffer.from(await attachment.arrayBuffer()).toString('latin1'));
        }
      }
      const changes = await fetch(`${url}/${database}/_changes?style=all_docs`, {
        headers: authHeaders,
      });
      texts.push(await changes.text());
      return texts.join('\n');
    },
    async readUpdateSeq(database) {
      const info = (await (
        await fetch(`${url}/${database}`, { headers: authHeaders })
      ).json()) as { update_seq?: unknown };
      return info.update_seq;
    },
    goOffline: stopListening,
    goOnline: () =>
      new Promise<void>((resolve, reject) => {
        if (isListening) {
          resolve();
          return;
        }
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          isListening = true;
          resolve();
        });
      }),
    close: stopListening,
  };
}
