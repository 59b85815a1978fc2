// The headers every dashboard response carries. Our own pages run no script at all; bull-board's page
// loads its scripts and styles from its own static files and sets inline styles (style attributes,
// <style> elements), so it gets a policy that allows exactly that. Neither may be framed.

const COMMON = {
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
} as const;

/** Our server-rendered pages: inline <style>, forms posting to us, nothing else. */
export const PAGE_CSP = [
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  "img-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** bull-board: its scripts, styles, images and API calls, all from us. */
export const BOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

// Built once: they are set on every response.
const PAGE_HEADERS: readonly (readonly [string, string])[] = Object.entries({
  ...COMMON,
  'Content-Security-Policy': PAGE_CSP,
});
const BOARD_HEADERS: readonly (readonly [string, string])[] = Object.entries({
  ...COMMON,
  'Content-Security-Policy': BOARD_CSP,
});

export function securityHeaders(board: boolean): readonly (readonly [string, string])[] {
  return board ? BOARD_HEADERS : PAGE_HEADERS;
}
