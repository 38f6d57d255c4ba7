/** The Settings → Sync form: checks and sentences, free of runes so tests import them as they are. */
import type { SyncSettings, SyncStatus } from '../../core/sync/sync-settings';
import { err, ok, type Result } from '../../util/result';

export interface SyncDraft {
  serverUrl: string;
  database: string;
  username: string;
  password: string;
  passphrase: string;
  shouldSyncKeys: boolean;
}

export const EMPTY_SYNC_DRAFT: SyncDraft = {
  serverUrl: '',
  database: 'carrel',
  username: '',
  password: '',
  passphrase: '',
  shouldSyncKeys: false,
};

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Why the browser would block this server, or undefined. The page's Content-Security-Policy
 * lets the app reach any https server and plain-HTTP servers on this computer only, as for
 * providers; on an https page the browser also blocks plain HTTP elsewhere (mixed content).
 */
export function findServerUrlProblem(serverUrl: string, pageProtocol: string): string | undefined {
  let url: URL;
  try {
    url = new URL(serverUrl.trim());
  } catch {
    return 'The server address is not a valid URL (e.g. https://couch.example.com).';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return 'The server address must start with https:// or http://.';
  if (url.username !== '' || url.password !== '')
    return 'Put the user name and password in their own fields, not in the address.';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname)) {
    return pageProtocol === 'https:'
      ? 'This page is served over HTTPS, so the browser blocks a plain-HTTP server (mixed content). Use an https:// address (put the server behind TLS).'
      : 'Carrel only reaches plain-HTTP servers on this computer (localhost); use an https:// address.';
  }
  return undefined;
}

export function validateSyncDraft(
  draft: SyncDraft,
  pageProtocol: string,
): Result<{ settings: SyncSettings; passphrase: string }, string> {
  const problem = findServerUrlProblem(draft.serverUrl, pageProtocol);
  if (problem !== undefined) return err(problem);
  const database = draft.database.trim();
  if (!/^[a-z][a-z0-9_$()+/-]*$/.test(database))
    return err(
      'The database name must start with a lowercase letter and hold only lowercase letters, digits and _$()+-/.',
    );
  if (draft.passphrase.length < 8) return err('Choose a passphrase of at least 8 characters.');
  return ok({
    settings: {
      serverUrl: draft.serverUrl.trim().replace(/\/+$/, ''),
      database,
      username: draft.username.trim(),
      password: draft.password,
      shouldSyncKeys: draft.shouldSyncKeys,
    },
    passphrase: draft.passphrase,
  });
}

/** One line for the status: what sync is doing, in words. */
export function describeSyncStatus(
  status: SyncStatus,
  formatTime: (time: number) => string,
): string {
  const last = status.lastSyncedAt === null ? 'not yet' : formatTime(status.lastSyncedAt);
  const pending =
    status.pending === 1
      ? '1 change waiting to be sent'
      : `${status.pending} changes waiting to be sent`;
  switch (status.state) {
    case 'off':
      return 'Sync is off on this device.';
    case 'connecting':
      return 'Connecting to the server and checking the passphrase…';
    case 'syncing':
      return status.progress === null
        ? 'Syncing…'
        : `Syncing: ${status.progress.done} ${status.progress.phase === 'push' ? 'sent' : 'received'}…`;
    case 'idle':
      return `Up to date. Last synced ${last}; ${pending}.`;
    case 'offline':
      return `Offline: will retry. Last synced ${last}; ${pending}.`;
    case 'error':
      return `Sync stopped on an error; it retries by itself. Last synced ${last}; ${pending}.`;
    case 'waiting_for_tab':
      return 'Another Carrel tab is syncing for this browser; this one waits its turn.';
    case 'waiting_for_import':
      return `A backup import is under way; sync resumes once it is done. Last synced ${last}; ${pending}.`;
  }
}
