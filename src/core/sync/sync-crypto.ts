/**
 * End-to-end encryption of synced records, on Web Crypto alone.
 *
 * A passphrase derives a key-encryption key (PBKDF2-SHA256, 600,000 iterations) that encrypts a
 * random 32-byte master secret; the key-info document on the server holds the salt, the KDF
 * settings, the encrypted secret and a check value. Changing the passphrase re-encrypts the
 * secret: one document. From the secret HKDF derives the body key (AES-GCM) and the id key
 * (HMAC-SHA256). Every body is encrypted with the document's id and revision as additional
 * data, so the server cannot move a body to another document or revision; document ids are an
 * HMAC of table and record id, so they say nothing about what they hold. A file's bytes travel
 * as an attachment of the file's document, sealed with the same key (`encryptBytes`).
 */
import { z } from 'zod';
import { SyncError } from './sync-errors';

export const KDF_ITERATIONS = 600_000;
export const KEY_INFO_DOC_ID = 'carrel-key-info';
const KEY_CHECK_TEXT = 'carrel-sync key check';
const KEY_INFO_AAD = 'carrel-sync key-info v1';
const IV_BYTES = 12;
const SALT_BYTES = 16;
const SECRET_BYTES = 32;

export interface SyncKeys {
  /** AES-GCM, encrypts and decrypts bodies. Not extractable. */
  body: CryptoKey;
  /** HMAC-SHA256, names documents. Not extractable. */
  ids: CryptoKey;
}

const base64Schema = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'Expected base64');

export const keyInfoSchema = z.object({
  format: z.literal('carrel-sync-key'),
  version: z.literal(1),
  kdf: z.object({
    name: z.literal('PBKDF2'),
    hash: z.literal('SHA-256'),
    // Fewer iterations than this would make a stolen key-info document cheap to attack.
    iterations: z.number().int().min(100_000).max(10_000_000),
  }),
  salt: base64Schema,
  secretIv: base64Schema,
  secret: base64Schema,
  checkIv: base64Schema,
  check: base64Schema,
});
export type KeyInfo = z.infer<typeof keyInfoSchema>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function toHex(bytes: ArrayBuffer): string {
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(length));
}

/** 32 random hex digits: the hash part of a local edit's revision. */
export function randomRevisionHash(): string {
  return toHex(randomBytes(16).buffer);
}

/** SHA-256 of a text, as 32 hex digits: a merge's revision, the same on every device. */
export async function contentRevisionHash(text: string): Promise<string> {
  return toHex(await crypto.subtle.digest('SHA-256', encoder.encode(text))).slice(0, 32);
}

async function deriveKek(passphrase: string, salt: Uint8Array<ArrayBuffer>, iterations: number) {
  const material = await crypto.subtle.importKey(
    'raw',
    encoder.encode(passphrase),
    'PBKDF2',
    false,
    ['deriveKey'],
  );
  return crypto.subtle.deriveKey(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
}

async function deriveKeys(secret: Uint8Array<ArrayBuffer>): Promise<SyncKeys> {
  const master = await crypto.subtle.importKey('raw', secret, 'HKDF', false, ['deriveKey']);
  const hkdf = (info: string) => ({
    name: 'HKDF',
    hash: 'SHA-256',
    salt: new Uint8Array(0),
    info: encoder.encode(info),
  });
  const [body, ids] = await Promise.all([
    crypto.subtle.deriveKey(
      hkdf('carrel-sync body'),
      master,
      { name: 'AES-GCM', length: 256 },
      false,
      ['encrypt', 'decrypt'],
    ),
    crypto.subtle.deriveKey(
      hkdf('carrel-sync ids'),
      master,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    ),
  ]);
  return { body, ids };
}

async function encryptWith(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  aad: string,
): Promise<{ iv: string; data: string }> {
  const iv = randomBytes(IV_BYTES);
  const data = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(aad) },
    key,
    plaintext,
  );
  return { iv: toBase64(iv), data: toBase64(new Uint8Array(data)) };
}

/** Null when the key, the additional data or the bytes do not match (GCM's tag fails). */
async function decryptWith(
  key: CryptoKey,
  iv: string,
  data: string,
  aad: string,
): Promise<Uint8Array | null> {
  try {
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: fromBase64(iv), additionalData: encoder.encode(aad) },
      key,
      fromBase64(data),
    );
    return new Uint8Array(plain);
  } catch {
    return null;
  }
}

async function sealSecret(
  secret: Uint8Array<ArrayBuffer>,
  passphrase: string,
  iterations: number,
): Promise<Pick<KeyInfo, 'kdf' | 'salt' | 'secretIv' | 'secret'>> {
  const salt = randomBytes(SALT_BYTES);
  const kek = await deriveKek(passphrase, salt, iterations);
  const sealed = await encryptWith(kek, secret, KEY_INFO_AAD);
  return {
    kdf: { name: 'PBKDF2', hash: 'SHA-256', iterations },
    salt: toBase64(salt),
    secretIv: sealed.iv,
    secret: sealed.data,
  };
}

export function checkPassphrase(passphrase: string): void {
  if (passphrase.length < 8)
    throw new SyncError(
      'invalid_config',
      'Choose a passphrase of at least 8 characters: it is the only thing protecting what the server stores.',
    );
}

/** A new key-info document for a new sync database, and the keys it holds. */
export async function createKeyInfo(
  passphrase: string,
  iterations = KDF_ITERATIONS,
): Promise<{ info: KeyInfo; keys: SyncKeys }> {
  checkPassphrase(passphrase);
  const secret = randomBytes(SECRET_BYTES);
  const keys = await deriveKeys(secret);
  const check = await encryptWith(keys.body, encoder.encode(KEY_CHECK_TEXT), KEY_INFO_AAD);
  const info: KeyInfo = {
    format: 'carrel-sync-key',
    version: 1,
    ...(await sealSecret(secret, passphrase, iterations)),
    checkIv: check.iv,
    check: check.data,
  };
  return { info, keys };
}

async function openSecret(info: KeyInfo, passphrase: string): Promise<Uint8Array<ArrayBuffer>> {
  const kek = await deriveKek(passphrase, fromBase64(info.salt), info.kdf.iterations);
  const secret = await decryptWith(kek, info.secretIv, info.secret, KEY_INFO_AAD);
  if (secret === null)
    throw new SyncError(
      'wrong_passphrase',
      'This passphrase does not open the sync database. Enter the passphrase you chose on your first device; nothing was changed.',
    );
  return new Uint8Array(secret);
}

/** The keys a key-info document holds, or a `wrong_passphrase` error. */
export async function unlockKeyInfo(raw: unknown, passphrase: string): Promise<SyncKeys> {
  const parsed = keyInfoSchema.safeParse(raw);
  if (!parsed.success)
    throw new SyncError(
      'bad_key_info',
      'The sync database holds a key document this version of Carrel cannot read; nothing was changed.',
    );
  const info = parsed.data;
  const keys = await deriveKeys(await openSecret(info, passphrase));
  const check = await decryptWith(keys.body, info.checkIv, info.check, KEY_INFO_AAD);
  if (check === null || decoder.decode(check) !== KEY_CHECK_TEXT)
    throw new SyncError(
      'bad_key_info',
      'The sync database key document is damaged (its check value does not match); nothing was changed.',
    );
  return keys;
}

/** The same secret under a new passphrase: the only document a passphrase change rewrites. */
export async function rewrapKeyInfo(
  info: KeyInfo,
  oldPassphrase: string,
  newPassphrase: string,
): Promise<KeyInfo> {
  checkPassphrase(newPassphrase);
  const secret = await openSecret(info, oldPassphrase);
  return { ...info, ...(await sealSecret(secret, newPassphrase, info.kdf.iterations)) };
}

/** The server's id for a record: an HMAC of its table and id, so it leaks neither. */
export async function remoteDocId(keys: SyncKeys, table: string, id: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', keys.ids, encoder.encode(`${table}\u0000${id}`));
  return `r${toHex(mac)}`;
}

function bodyAad(docId: string, rev: string): string {
  return `carrel-sync body v1\u0000${docId}\u0000${rev}`;
}

export interface SealedBody {
  iv: string;
  data: string;
}

export async function encryptBody(
  keys: SyncKeys,
  docId: string,
  rev: string,
  value: unknown,
): Promise<SealedBody> {
  return encryptWith(keys.body, encoder.encode(JSON.stringify(value)), bodyAad(docId, rev));
}

/** The decrypted value, or a `tampered` error when it was not sealed for this id and revision. */
export async function decryptBody(
  keys: SyncKeys,
  docId: string,
  rev: string,
  sealed: SealedBody,
): Promise<unknown> {
  const plain = await decryptWith(keys.body, sealed.iv, sealed.data, bodyAad(docId, rev));
  if (plain === null)
    throw new SyncError(
      'tampered',
      `Document ${docId} (revision ${rev}) does not decrypt with this database's key: it was changed on the server or written with another key.`,
    );
  try {
    return JSON.parse(decoder.decode(plain)) as unknown;
  } catch {
    throw new SyncError('tampered', `Document ${docId} decrypts to something that is not JSON.`);
  }
}

function bytesAad(docId: string, contentHash: string): string {
  return `carrel-sync bytes v1\u0000${docId}\u0000${contentHash}`;
}

/**
 * A file's bytes as the attachment of its document: the IV, then the AES-GCM ciphertext. Bound
 * to the document id and the file's content hash (not the revision: the attachment stays on the
 * document while its metadata changes), so the server can neither move them to another file nor
 * hand out an older content under a newer hash.
 */
export async function encryptBytes(
  keys: SyncKeys,
  docId: string,
  contentHash: string,
  bytes: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const iv = randomBytes(IV_BYTES);
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: encoder.encode(bytesAad(docId, contentHash)) },
    keys.body,
    bytes,
  );
  const joined = new Uint8Array(IV_BYTES + sealed.byteLength);
  joined.set(iv);
  joined.set(new Uint8Array(sealed), IV_BYTES);
  return joined;
}

/** The file's bytes, or a `tampered` error when they were not sealed for this file and content. */
export async function decryptBytes(
  keys: SyncKeys,
  docId: string,
  contentHash: string,
  sealed: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  try {
    const plain = await crypto.subtle.decrypt(
      {
        name: 'AES-GCM',
        iv: sealed.subarray(0, IV_BYTES),
        additionalData: encoder.encode(bytesAad(docId, contentHash)),
      },
      keys.body,
      sealed.subarray(IV_BYTES),
    );
    return new Uint8Array(plain);
  } catch {
    throw new SyncError(
      'tampered',
      `The file stored under ${docId} on the sync server does not decrypt as this file's content: it was changed there, or belongs to another version of the file.`,
    );
  }
}
