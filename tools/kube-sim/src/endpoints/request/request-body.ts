// Request bodies: read up to the API server's limit and decoded by their Content-Type (JSON, YAML as
// YAML 1.1, kubectl's protobuf), with the keys a JSON body repeats kept for fieldValidation.
import type { IncomingMessage } from 'node:http';
import { parse as parseYaml } from 'yaml';
import type { WriteOptions } from '../../registry/api.ts';
import { ApiError } from '../../apimachinery/types.ts';
import { decodeKubeProtobuf } from '../../apimachinery/protobuf.ts';
import { duplicateFields } from '../../apimachinery/json-duplicates.ts';

const MAX_BODY = 3 * 1024 * 1024;

/** The media type of a Content-Type header, lower case, without parameters (JSON when absent). */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_BODY) {
        reject(new ApiError(413, 'RequestEntityTooLarge', 'Request entity too large: limit is 3145728'));
        req.destroy();
        return;
      }
      chunks.push(b);
    });
    req.on('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function parseBody(buf: Buffer, contentType: string | undefined): unknown {
  const ct = mediaType(contentType);
  if (ct === 'application/vnd.kubernetes.protobuf') return decodeKubeProtobuf(buf);
  const text = buf.toString('utf8');
  if (!text.trim()) throw new ApiError(400, 'BadRequest', 'the request body is empty');
  if (ct.includes('protobuf') || ct.includes('cbor')) {
    throw new ApiError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`,
    );
  }
  try {
    // The API server reads YAML as YAML 1.1 (sigs.k8s.io/yaml): an unquoted yes, no, on or off is a boolean.
    if (ct === 'application/yaml' || ct === 'application/apply-patch+yaml')
      return parseYaml(text, { version: '1.1' }) as unknown;
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ApiError(
      400,
      'BadRequest',
      `error decoding request body: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}

/** A write's body, parsed; the keys a JSON body repeats go to fieldValidation (unless it is Ignore). */
export function bodyOf(buf: Buffer, contentType: string | undefined, opts: WriteOptions): unknown {
  const body = parseBody(buf, contentType);
  const ct = mediaType(contentType);
  if (opts.fieldValidation !== 'Ignore' && (ct === 'application/json' || ct.endsWith('+json'))) {
    const duplicates = duplicateFields(buf.toString('utf8'));
    if (duplicates.length) opts.duplicateFields = duplicates;
  }
  return body;
}

/** The request body, decoded by its Content-Type. */
export async function requestBody(req: IncomingMessage): Promise<unknown> {
  return parseBody(await readBody(req), req.headers['content-type']);
}
