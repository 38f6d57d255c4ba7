/**
 * Which URLs the model may make the app fetch (issue 9). Pure: it sees the URL text only.
 *
 * What a browser cannot check: it never sees DNS, so a public hostname that resolves to a
 * private address (or a DNS-rebinding name) passes this policy. The policy stops the model from
 * *naming* an internal host; browsers add their own guard (Chrome's Private/Local Network Access
 * prompts) and CORS keeps most internal responses unreadable anyway.
 */

export type UrlRefusalCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'has_credentials'
  | 'local_hostname'
  | 'private_address'
  | 'metadata_address';

export type UrlVerdict =
  { isAllowed: true; url: string } | { isAllowed: false; code: UrlRefusalCode; reason: string };

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

/** [first address, prefix length] for IPv4 ranges that are not the public internet. */
const IPV4_RANGES: Array<
  [string, number, Exclude<AddressClass, 'public' | 'ipv4_mapped' | 'unique_local'>]
> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

/**
 * Decides whether a URL may be fetched. Only http(s), no user name or password in it, no
 * local hostnames or non-public addresses (unless the user allows the private network) and
 * never a metadata endpoint. The returned `url` is the parsed, normalised form to fetch.
 */
export function checkUrl(rawUrl: string, options: UrlPolicyOptions): UrlVerdict {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return refuse('invalid_url', `"${shorten(rawUrl)}" is not a valid absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return refuse(
      'unsupported_scheme',
      `Only http and https URLs can be opened, not ${url.protocol.replace(/:$/, '')}.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    return refuse(
      'has_credentials',
      'URLs with a user name or password in them are never fetched.',
    );
  }
  const host = url.hostname.toLowerCase().replace(/\.+$/, '');
  const hostVerdict = checkHost(host, options);
  if (hostVerdict) return hostVerdict;
  return { isAllowed: true, url: url.href };
}

function checkHost(host: string, options: UrlPolicyOptions): UrlVerdict | null {
  if (host === '') return refuse('invalid_url', 'The URL has no host.');
  if (host.startsWith('[')) {
    const groups = parseIpv6(host.slice(1, -1));
    if (!groups) return refuse('invalid_url', `"${host}" is not a valid IPv6 address.`);
    if (METADATA_IPV6.has(groups.map((g) => g.toString(16)).join(':'))) return refuseMetadata(host);
    return checkAddressClass(classifyIpv6(groups), host, options);
  }
  const ipv4 = parseIpv4(host);
  if (ipv4 !== null) {
    if (METADATA_IPV4.has(formatIpv4(ipv4))) return refuseMetadata(host);
    return checkAddressClass(classifyIpv4(ipv4), host, options);
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

function refuse(code: UrlRefusalCode, reason: string): UrlVerdict {
  return { isAllowed: false, code, reason };
}

function refuseMetadata(host: string): UrlVerdict {
  return refuse(
    'metadata_address',
    `${host} is a cloud instance-metadata endpoint, which is never fetched.`,
  );
}

function shorten(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * Parses an IPv4 host the way browsers do (inet_aton): 1 to 4 parts, each decimal, octal with
 * a leading 0 or hex with 0x, the last part filling the remaining bytes (so `2130706433`,
 * `0x7f.1` and `0177.0.0.1` are all 127.0.0.1). Returns the 32-bit value, or null.
 */
export function parseIpv4(host: string): number | null {
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((part) => part === '')) return null;
  const values: number[] = [];
  for (const part of parts) {
    const value = parseIpv4Part(part);
    if (value === null) return null;
    values.push(value);
  }
  const last = values.pop() as number;
  if (values.some((value) => value > 255)) return null;
  if (last >= 2 ** (8 * (4 - values.length))) return null;
  let address = 0;
  values.forEach((value, index) => {
    address += value * 2 ** (8 * (3 - index));
  });
  return address + last;
}

function parseIpv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

export function formatIpv4(address: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(address / 2 ** shift) % 256).join('.');
}

function classifyIpv4(address: number): AddressClass {
  for (const [base, prefix, addressClass] of IPV4_RANGES) {
    const size = 2 ** (32 - prefix);
    const start = parseIpv4(base) as number;
    if (address >= start && address < start + size) return addressClass;
  }
  return 'public';
}

/** Parses an IPv6 address (without brackets or zone) into its eight 16-bit groups, or null. */
export function parseIpv6(text: string): number[] | null {
  let rest = text.toLowerCase();
  let ipv4Groups: number[] = [];
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (dotted) {
    const ipv4 = parseStrictIpv4(dotted[2] ?? '');
    if (ipv4 === null) return null;
    ipv4Groups = [Math.floor(ipv4 / 65536), ipv4 % 65536];
    rest = dotted[1] ?? '';
    if (!rest.endsWith('::')) rest = rest.slice(0, -1);
  }
  const halves = rest.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string): number[] | null => {
    if (half === '') return [];
    const groups = half.split(':');
    if (groups.some((group) => !/^[0-9a-f]{1,4}$/.test(group))) return null;
    return groups.map((group) => parseInt(group, 16));
  };
  const head = parse(halves[0] ?? '');
  const after = halves.length === 2 ? parse(halves[1] ?? '') : [];
  if (!head || !after) return null;
  const known = head.length + after.length + ipv4Groups.length;
  if (halves.length === 2) {
    if (known > 7) return null;
    return [...head, ...new Array<number>(8 - known).fill(0), ...after, ...ipv4Groups];
  }
  return known === 8 ? [...head, ...ipv4Groups] : null;
}

function parseStrictIpv4(text: string): number | null {
  const parts = text.split('.').map(Number);
  if (parts.length !== 4 || parts.some((part) => !Number.isInteger(part) || part > 255))
    return null;
  return parts.reduce((sum, part) => sum * 256 + part, 0);
}

function classifyIpv6(groups: number[]): AddressClass {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const isZeroUpTo = (count: number): boolean =>
    groups.slice(0, count).every((group) => group === 0);
  const embedded = (high: number, low: number): number => high * 65536 + low;
  if (isZeroUpTo(7) && g7 === 0) return 'unspecified';
  if (isZeroUpTo(7) && g7 === 1) return 'loopback';
  if (isZeroUpTo(5) && g5 === 0xffff) return 'ipv4_mapped';
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96) carry an IPv4 address.
  if (isZeroUpTo(6)) return 'reserved';
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return classifyIpv4(embedded(g6, g7));
  }
  if (g0 === 0x2002) return classifyIpv4(embedded(g1, g2)); // 6to4
  if ((g0 & 0xffc0) === 0xfe80) return 'link_local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // site-local, deprecated
  if ((g0 & 0xfe00) === 0xfc00) return 'unique_local';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved'; // documentation
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard
  return 'public';
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
