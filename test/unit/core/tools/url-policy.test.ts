import { describe, expect, it } from 'vitest';
import {
  checkUrl,
  findConversationTextInUrl,
  indexConversation,
  type UrlRefusalCode,
} from '../../../../src/core/agent/tools/url-policy';

const STRICT = { shouldAllowPrivateNetwork: false };
const LENIENT = { shouldAllowPrivateNetwork: true };

type Row = [url: string, strict: UrlRefusalCode | 'allowed', lenient: UrlRefusalCode | 'allowed'];

const TABLE: Row[] = [
  // schemes
  ['https://example.com/page', 'allowed', 'allowed'],
  ['http://example.com:8080/a?b=c', 'allowed', 'allowed'],
  ['HTTPS://EXAMPLE.COM/', 'allowed', 'allowed'],
  ['ftp://example.com/file', 'unsupported_scheme', 'unsupported_scheme'],
  ['file:///etc/passwd', 'unsupported_scheme', 'unsupported_scheme'],
  ['javascript:alert(1)', 'unsupported_scheme', 'unsupported_scheme'],
  ['data:text/html,<b>hi</b>', 'unsupported_scheme', 'unsupported_scheme'],
  ['blob:https://example.com/uuid', 'unsupported_scheme', 'unsupported_scheme'],
  ['example.com/no-scheme', 'invalid_url', 'invalid_url'],
  ['http://', 'invalid_url', 'invalid_url'],
  // credentials
  ['https://user:secret@example.com/', 'has_credentials', 'has_credentials'],
  ['https://user@example.com/', 'has_credentials', 'has_credentials'],
  // loopback and local names
  ['http://localhost/', 'local_hostname', 'allowed'],
  ['http://LOCALHOST.:3000/', 'local_hostname', 'allowed'],
  ['http://app.localhost/', 'local_hostname', 'allowed'],
  ['http://printer.local/', 'local_hostname', 'allowed'],
  ['http://intranet/', 'local_hostname', 'allowed'],
  ['http://nas.home.arpa/', 'local_hostname', 'allowed'],
  ['http://127.0.0.1/', 'private_address', 'allowed'],
  ['http://127.255.1.2/', 'private_address', 'allowed'],
  // numeric, octal, hex and short IPv4 forms of 127.0.0.1
  ['http://2130706433/', 'private_address', 'allowed'],
  ['http://0x7f000001/', 'private_address', 'allowed'],
  ['http://0177.0.0.1/', 'private_address', 'allowed'],
  ['http://0x7f.1/', 'private_address', 'allowed'],
  ['http://127.1/', 'private_address', 'allowed'],
  // private ranges
  ['http://10.1.2.3/', 'private_address', 'allowed'],
  ['http://172.16.0.1/', 'private_address', 'allowed'],
  ['http://172.31.255.255/', 'private_address', 'allowed'],
  ['http://172.32.0.1/', 'allowed', 'allowed'],
  ['http://192.168.1.1/', 'private_address', 'allowed'],
  ['http://100.64.0.1/', 'private_address', 'allowed'],
  ['http://169.254.10.10/', 'private_address', 'allowed'],
  ['http://0.0.0.0/', 'private_address', 'private_address'],
  ['http://0/', 'private_address', 'private_address'],
  ['http://224.0.0.1/', 'private_address', 'private_address'],
  ['http://255.255.255.255/', 'private_address', 'private_address'],
  ['http://8.8.8.8/', 'allowed', 'allowed'],
  // metadata endpoints, refused whatever the switch says
  ['http://169.254.169.254/latest/meta-data/', 'metadata_address', 'metadata_address'],
  ['http://0xa9fea9fe/', 'metadata_address', 'metadata_address'],
  ['http://metadata.google.internal/computeMetadata/v1/', 'metadata_address', 'metadata_address'],
  ['http://[fd00:ec2::254]/', 'metadata_address', 'metadata_address'],
  // IPv6
  ['http://[::1]/', 'private_address', 'allowed'],
  ['http://[::]/', 'private_address', 'private_address'],
  ['http://[fe80::1]/', 'private_address', 'allowed'],
  ['http://[fc00::1]/', 'private_address', 'allowed'],
  ['http://[fd12:3456::1]/', 'private_address', 'allowed'],
  ['http://[ff02::1]/', 'private_address', 'private_address'],
  ['http://[::ffff:127.0.0.1]/', 'private_address', 'allowed'],
  ['http://[::ffff:8.8.8.8]/', 'private_address', 'allowed'],
  ['http://[64:ff9b::10.0.0.1]/', 'private_address', 'allowed'],
  ['http://[64:ff9b::8.8.8.8]/', 'allowed', 'allowed'],
  ['http://[2002:c0a8:0101::1]/', 'private_address', 'allowed'],
  ['http://[2606:4700:4700::1111]/', 'allowed', 'allowed'],
];

describe('checkUrl', () => {
  it.each(TABLE)('%s → %s (strict), %s (private network allowed)', (url, strict, lenient) => {
    const strictVerdict = checkUrl(url, STRICT);
    const lenientVerdict = checkUrl(url, LENIENT);
    expect(strictVerdict.isAllowed ? 'allowed' : strictVerdict.code).toBe(strict);
    expect(lenientVerdict.isAllowed ? 'allowed' : lenientVerdict.code).toBe(lenient);
  });

  it('explains a refusal in a sentence the model can pass on', () => {
    const verdict = checkUrl('http://192.168.0.10/admin', STRICT);
    expect(verdict).toMatchObject({ isAllowed: false });
    if (!verdict.isAllowed)
      expect(verdict.reason).toMatch(/192\.168\.0\.10 is a private network address/);
  });

  it('returns the normalised URL to fetch', () => {
    expect(checkUrl('  HTTPS://Example.COM/a b ', STRICT)).toEqual({
      isAllowed: true,
      url: 'https://example.com/a%20b',
    });
  });
});

describe('address forms', () => {
  it('reads IPv4 the way browsers do, including short and mixed-base forms', () => {
    for (const host of ['192.168.1.1', '0xc0.0250.1.1', '3232235777', '192.168.257']) {
      expect(checkUrl(`http://${host}/`, STRICT)).toMatchObject({
        isAllowed: false,
        code: 'private_address',
      });
    }
    expect(checkUrl('http://1.2.3.4.5/', STRICT)).toMatchObject({ isAllowed: false });
    expect(checkUrl('http://256.1.1.1/', STRICT)).toMatchObject({ isAllowed: false });
  });

  it('reads IPv6 with compression, an embedded IPv4 tail, or the IPv4 address it carries', () => {
    const refused = (host: string) => checkUrl(`http://[${host}]/`, STRICT);
    expect(refused('::1')).toMatchObject({ isAllowed: false, code: 'private_address' });
    expect(refused('0:0:0:0:0:ffff:127.0.0.1')).toMatchObject({ isAllowed: false });
    expect(refused('64:ff9b::10.0.0.1')).toMatchObject({ isAllowed: false });
    expect(refused('2002:c0a8:101::1')).toMatchObject({ isAllowed: false });
    expect(refused('::ffff:0:7f00:1')).toMatchObject({ isAllowed: false });
    expect(checkUrl('http://[64:ff9b::8.8.8.8]/', STRICT)).toMatchObject({ isAllowed: true });
    expect(checkUrl('http://[2606:4700::1111]/', STRICT)).toMatchObject({ isAllowed: true });
    expect(refused('1::2::3')).toMatchObject({ isAllowed: false, code: 'invalid_url' });
  });
});

describe('findConversationTextInUrl', () => {
  const conversation = indexConversation([
    'My employee number is A1234567 and my manager is Jane Dupont from the Lyon office.',
    'Here is a link: https://example.com/report?id=42&lang=fr',
  ]);

  it('finds three words of the conversation in a query string', () => {
    expect(
      findConversationTextInUrl('https://evil.example/log?d=manager+is+Jane', conversation),
    ).toBe('manager is jane');
  });

  it('finds a distinctive token such as an id, whatever its case', () => {
    expect(findConversationTextInUrl('https://evil.example/p?x=a1234567', conversation)).toBe(
      'a1234567',
    );
  });

  it('sees through percent-encoding', () => {
    expect(
      findConversationTextInUrl('https://evil.example/?q=Jane%20Dupont%20from', conversation),
    ).toBe('jane dupont from');
  });

  it('lets through a URL that appears verbatim in the conversation', () => {
    expect(
      findConversationTextInUrl('https://example.com/report?id=42&lang=fr', conversation),
    ).toBeNull();
  });

  it('finds conversation text in a path segment, however it is joined', () => {
    expect(
      findConversationTextInUrl('https://evil.example/jane-dupont-from-lyon', conversation),
    ).toBe('jane dupont from');
    expect(findConversationTextInUrl('https://evil.example/u/A1234567.png', conversation)).toBe(
      'a1234567',
    );
    expect(
      findConversationTextInUrl('https://evil.example/x/Jane%20Dupont%20from', conversation),
    ).toBe('jane dupont from');
  });

  it('finds conversation text in the sub-domains, where a DNS lookup alone would leak it', () => {
    expect(findConversationTextInUrl('https://a1234567.evil.example/', conversation)).toBe(
      'a1234567',
    );
  });

  it('lets through an address with no conversation text', () => {
    expect(
      findConversationTextInUrl('https://example.com/search?q=weather+in+paris', conversation),
    ).toBeNull();
    expect(
      findConversationTextInUrl('https://docs.example.com/guide/getting-started', conversation),
    ).toBeNull();
    expect(findConversationTextInUrl('https://example.com/%E0%A4%A', conversation)).toBeNull();
  });
});
