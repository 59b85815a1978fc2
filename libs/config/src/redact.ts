// A URL as it may be shown in a log line or an error: the userinfo (user and password) replaced, for a
// URL that does not parse too — a malformed REDIS_URL is exactly the one echoed back in an error.

/** `raw` with everything between the scheme and the last "@" (the userinfo) replaced by "***". */
export function redactUrl(raw: string): string {
  const at = raw.lastIndexOf('@');
  if (at < 0) return raw;
  // The scheme and its slashes, however malformed ("redis://", "redis:/", "redis:"); none at all is fine.
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/*/.exec(raw)?.[0] ?? '';
  return `${scheme}***${raw.slice(at)}`;
}
