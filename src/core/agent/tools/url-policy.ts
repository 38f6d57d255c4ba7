import ipaddr from 'ipaddr.js';
import { checkUrlShape, refuse, type UrlVerdict } from './url-shape';

/**
 * Which URLs the model may make the app fetch. Pure: it sees the URL text only. Addresses are
 * parsed and ranged by ipaddr.js; the URL parser has already turned the forms browsers accept
 * (`0x7f.1`, `2130706433`, `0177.0.0.1`) into dotted decimal.
 *
 * What a browser cannot check: it never sees DNS, so a public hostname that resolves to a
 * private address (or a DNS-rebinding name) passes this policy. The policy stops the model from
 * *naming* an internal host; browsers add their own guard (Chrome's Private/Local Network Access
 * prompts) and CORS keeps most internal responses unreadable anyway.
 */

export type { UrlRefusalCode, UrlVerdict } from './url-shape';

export interface UrlPolicyOptions {
  /**
   * The user's switch for self-hosted pages (private, loopback, link-local addresses and local
   * names). Cloud metadata endpoints stay refused: no page a person reads lives there.
   */
  shouldAllowPrivateNetwork: boolean;
}

type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'unique_local'
  | 'shared'
  | 'unspecified'
  | 'multicast'
  | 'reserved'
  | 'ipv4_mapped';

const CLASS_LABELS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address (this computer)',
  private: 'a private network address',
  link_local: 'a link-local address',
  unique_local: 'a unique-local IPv6 address (a private network)',
  shared: 'a carrier-grade NAT address (a private network)',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  ipv4_mapped: 'an IPv4-mapped IPv6 address',
};

/** Cloud instance-metadata endpoints: refused even when the private network is allowed. */
const METADATA_IPV4 = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200']);
const METADATA_IPV6 = new Set(['fd00:ec2:0:0:0:0:0:254']);
const METADATA_HOSTNAMES = new Set([
  'metadata.google.internal',
  'metadata.azure.internal',
  'instance-data.ec2.internal',
]);

/** Names that only mean something on the user's own machine or network. */
const LOCAL_SUFFIXES = [
  '.localhost',
  '.local',
  '.internal',
  '.intranet',
  '.lan',
  '.home',
  '.corp',
  '.home.arpa',
  '.localdomain',
];
const LOCAL_NAMES = new Set([
  'localhost',
  'localhost.localdomain',
  'broadcasthost',
  'ip6-localhost',
  'ip6-loopback',
]);

/**
 * ipaddr.js names the special-purpose ranges of the IANA registries; these are the ones that are
 * not the public internet, in this policy's words. Any range not listed (unicast, AS112, AMT,
 * Teredo) is public. The embedding ranges (IPv4-mapped and -translated, NAT64, 6to4) are
 * classified by the IPv4 address they carry, in `classifyAddress`.
 */
const RANGE_CLASSES: Readonly<Record<string, Exclude<AddressClass, 'public'>>> = {
  unspecified: 'unspecified',
  broadcast: 'reserved',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'shared',
  private: 'private',
  reserved: 'reserved',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'private',
  discard: 'reserved',
  benchmarking: 'reserved',
  deprecatedOrchid: 'reserved',
  orchid2: 'reserved',
  droneRemoteIdProtocolEntityTags: 'reserved',
  segmentRouting: 'reserved',
};

/** NAT64's well-known prefix (64:ff9b::/96) puts the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * Decides whether a URL may be fetched. Only http(s), no user name or password in it, no
 * local hostnames or non-public addresses (unless the user allows the private network) and
 * never a metadata endpoint. The returned `url` is the parsed, normalised form to fetch.
 */
export function checkUrl(rawUrl: string, options: UrlPolicyOptions): UrlVerdict {
  const shape = checkUrlShape(rawUrl);
  if (!shape.isAllowed) return shape;
  const url = new URL(shape.url);
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  const hostVerdict = checkHost(host, options);
  if (hostVerdict) return hostVerdict;
  return shape;
}

function checkHost(host: string, options: UrlPolicyOptions): UrlVerdict | null {
  if (host === '') return refuse('invalid_url', 'The URL has no host.');
  if (host.startsWith('[')) {
    const text = host.slice(1, -1);
    if (!ipaddr.IPv6.isValid(text)) {
      return refuse('invalid_url', `"${host}" is not a valid IPv6 address.`);
    }
    const address = ipaddr.IPv6.parse(text);
    if (METADATA_IPV6.has(address.toNormalizedString())) return refuseMetadata(host);
    return checkAddressClass(classifyAddress(address), host, options);
  }
  if (ipaddr.IPv4.isValid(host)) {
    const address = ipaddr.IPv4.parse(host);
    if (METADATA_IPV4.has(address.toString())) return refuseMetadata(host);
    return checkAddressClass(classifyAddress(address), host, options);
  }
  if (METADATA_HOSTNAMES.has(host)) return refuseMetadata(host);
  const isLocalName =
    LOCAL_NAMES.has(host) ||
    LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) ||
    !host.includes('.');
  if (isLocalName && !options.shouldAllowPrivateNetwork) {
    return refuse(
      'local_hostname',
      `"${host}" names a machine on the local network, which the web tools do not open unless you allow private network addresses in the settings.`,
    );
  }
  return null;
}

function checkAddressClass(
  addressClass: AddressClass,
  host: string,
  options: UrlPolicyOptions,
): UrlVerdict | null {
  if (addressClass === 'public') return null;
  // Multicast and reserved ranges are never a web page, whatever the switch says.
  const isAllowable =
    addressClass !== 'multicast' && addressClass !== 'reserved' && addressClass !== 'unspecified';
  if (isAllowable && options.shouldAllowPrivateNetwork) return null;
  return refuse(
    'private_address',
    `${host} is ${CLASS_LABELS[addressClass]}; the web tools only open public internet addresses` +
      (isAllowable ? ' unless you allow private network addresses in the settings.' : '.'),
  );
}

function refuseMetadata(host: string): UrlVerdict {
  return refuse(
    'metadata_address',
    `${host} is a cloud instance-metadata endpoint, which is never fetched.`,
  );
}

function classifyAddress(address: ipaddr.IPv4 | ipaddr.IPv6): AddressClass {
  if (address.kind() === 'ipv4') return RANGE_CLASSES[address.range()] ?? 'public';
  const ipv6 = address as ipaddr.IPv6;
  const range = ipv6.range();
  if (range === 'ipv4Mapped') return 'ipv4_mapped';
  const [, g1 = 0, g2 = 0, , , , g6 = 0, g7 = 0] = ipv6.parts;
  const embedded = (high: number, low: number) =>
    classifyAddress(ipaddr.fromByteArray([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  // IPv4-translated (::ffff:0:a.b.c.d) and NAT64 carry an IPv4 address in their last 32 bits;
  // 6to4 (2002::/16) right after its prefix.
  if (range === 'rfc6145' || ipv6.match(NAT64_WELL_KNOWN)) return embedded(g6, g7);
  if (range === '6to4') return embedded(g1, g2);
  // NAT64's local-use prefix (64:ff9b:1::/48) only exists inside a private network.
  if (range === 'rfc6052') return 'private';
  // IPv4-compatible addresses (::a.b.c.d) are deprecated; ipaddr.js calls them unicast.
  if (range === 'unicast' && ipv6.parts.slice(0, 6).every((part) => part === 0)) return 'reserved';
  return RANGE_CLASSES[range] ?? 'public';
}

/* ---- Conversation text in an address (exfiltration guard). ---- */

/** Three words in a row from the conversation, anywhere in an address, need the user's consent. */
export const SHARED_WORD_RUN = 3;
/** A single word this long that contains a digit (ids, numbers, keys) is enough on its own. */
export const MIN_DISTINCTIVE_TOKEN_LENGTH = 6;

export interface ConversationIndex {
  /** Word runs of SHARED_WORD_RUN words, joined by spaces. */
  runs: Set<string>;
  distinctiveTokens: Set<string>;
  /** The conversation texts lower-cased, to exempt a URL that appears in it verbatim. */
  texts: string[];
}

function splitWords(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

function isDistinctive(word: string): boolean {
  return word.length >= MIN_DISTINCTIVE_TOKEN_LENGTH && /\p{N}/u.test(word);
}

/** Indexes what was said in the conversation (messages, attachments, tool results). */
export function indexConversation(texts: readonly string[]): ConversationIndex {
  const runs = new Set<string>();
  const distinctiveTokens = new Set<string>();
  for (const text of texts) {
    const words = splitWords(text);
    words.forEach((word, index) => {
      if (isDistinctive(word)) distinctiveTokens.add(word);
      if (index + SHARED_WORD_RUN <= words.length)
        runs.add(words.slice(index, index + SHARED_WORD_RUN).join(' '));
    });
  }
  return { runs, distinctiveTokens, texts: texts.map((text) => text.toLowerCase()) };
}

/**
 * The conversation text a URL would send to its site, or null. The query string, every path
 * segment and the host's labels below the site's own name are searched (a path such as
 * `/ZX-4471-PLUM` or a host such as `zx4471.evil.example` leaks as surely as `?q=`). A URL that
 * appears verbatim in the conversation (the user pasted it, a search returned it) is not the
 * model's making and passes. Text hidden by encodings (base64, hex) is not detected.
 */
export function findConversationTextInUrl(rawUrl: string, index: ConversationIndex): string | null {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return null;
  }
  const lowered = url.href.toLowerCase();
  const rawLowered = rawUrl.trim().toLowerCase();
  if (index.texts.some((text) => text.includes(lowered) || text.includes(rawLowered))) return null;
  for (const part of carriedParts(url)) {
    const words = splitWords(part);
    for (let i = 0; i + SHARED_WORD_RUN <= words.length; i++) {
      const run = words.slice(i, i + SHARED_WORD_RUN).join(' ');
      if (index.runs.has(run)) return run;
    }
    const token = words.find((word) => isDistinctive(word) && index.distinctiveTokens.has(word));
    if (token) return token;
  }
  return null;
}

/** The pieces of a URL a site receives that a model could fill: query, path, sub-domains. */
function carriedParts(url: URL): string[] {
  const parts: string[] = [];
  for (const [name, value] of url.searchParams) parts.push(`${name} ${value}`);
  for (const segment of url.pathname.split('/')) {
    if (segment === '') continue;
    parts.push(safeDecode(segment));
  }
  // Labels left of the last two (the site's name and its top-level domain).
  const labels = url.hostname.split('.');
  if (labels.length > 2) parts.push(labels.slice(0, -2).join(' '));
  return parts;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
