/**
 * The part of the URL policy that needs no address tables: an absolute http(s) URL with no user
 * name or password in it. The settings registry checks stored addresses with this at startup;
 * `checkUrl` (url-policy.ts) starts with it, then judges the host.
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

/** An absolute http(s) URL without credentials; the returned `url` is its normalised form. */
export function checkUrlShape(rawUrl: string): UrlVerdict {
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
    return refuse('has_credentials', 'URLs with a user name or password in them are never fetched.');
  }
  return { isAllowed: true, url: url.href };
}

export function refuse(code: UrlRefusalCode, reason: string): UrlVerdict {
  return { isAllowed: false, code, reason };
}

function shorten(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
