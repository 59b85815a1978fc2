// Response writers: JSON as the API server's encoder writes it, documents served as marshalled, errors as
// Status objects (with Retry-After), and warnings as Warning headers.
import type { ServerResponse } from 'node:http';
import type { WriteOptions } from '../../registry/api.ts';
import { statusBody, toApiError } from './status.ts';

type Headers = Record<string, string | string[]>;

/**
 * A JSON response as the API server's encoder writes it (Go's json.Encoder): the document, then a newline.
 * Clients that read a body line by line (or frame it) depend on that newline.
 */
export function send(res: ServerResponse, code: number, body: string, headers: Headers = {}): void {
  sendBytes(res, code, body.endsWith('\n') ? body : `${body}\n`, headers);
}

/** The body as is: documents the API server writes without its encoder (OpenAPI, served as marshalled). */
export function sendBytes(res: ServerResponse, code: number, body: string, headers: Headers = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export function sendJson(res: ServerResponse, code: number, value: unknown, headers: Headers = {}): void {
  send(res, code, JSON.stringify(value), headers);
}

const jsonCache = new WeakMap<object, string>();
/** The JSON text of a document that doesn't change once built (OpenAPI documents are cached per type set). */
export function cachedJson(doc: object): string {
  let text = jsonCache.get(doc);
  if (text === undefined) jsonCache.set(doc, (text = JSON.stringify(doc)));
  return text;
}

export function sendError(res: ServerResponse, err: unknown): void {
  const e = toApiError(err);
  const headers: Record<string, string> = {};
  if (e.retryAfterSeconds !== undefined) headers['Retry-After'] = String(e.retryAfterSeconds);
  sendJson(res, e.code, statusBody(e), headers);
}

/** A write's warnings (fieldValidation=Warn, deprecations) as the API server sends them. */
export function warningHeaders(opts: WriteOptions): Record<string, string[]> {
  const w = opts.warnings ?? [];
  if (!w.length) return {};
  return { Warning: w.map((m) => `299 - ${JSON.stringify(m)}`) };
}
