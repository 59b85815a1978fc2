// A small OTLP/HTTP trace receiver for tests: what an OpenTelemetry Collector would receive, decoded.
// It decodes OTLP/JSON (OTEL_EXPORTER_OTLP_PROTOCOL=http/json): ids are hex strings, times nanoseconds
// as strings or numbers, attributes {key, value: {stringValue | intValue | boolValue | doubleValue}}.
// A protobuf body is counted but not decoded.
import { createServer, type Server } from 'node:http';

export type AttrValue = string | number | boolean;

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attributes: Record<string, AttrValue>;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message?: string };
}

interface OtlpAttr {
  key: string;
  value: { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind?: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpAttr[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
interface OtlpRequest {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttr[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

function attrs(list: readonly OtlpAttr[] | undefined): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const { key, value } of list ?? []) {
    if (value.stringValue !== undefined) out[key] = value.stringValue;
    else if (value.intValue !== undefined) out[key] = Number(value.intValue);
    else if (value.boolValue !== undefined) out[key] = value.boolValue;
    else if (value.doubleValue !== undefined) out[key] = value.doubleValue;
  }
  return out;
}

/** Epoch ms, to the microsecond. */
const ms = (nanos: string | number): number => Number(BigInt(nanos) / 1_000n) / 1000;

/** The spans of one OTLP/JSON export request. */
export function decodeOtlpJson(body: OtlpRequest): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const service = String(attrs(rs.resource?.attributes)['service.name'] ?? '');
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        spans.push({
          service,
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId === undefined || s.parentSpanId === '' ? undefined : s.parentSpanId,
          name: s.name,
          kind: s.kind ?? 0,
          startMs: ms(s.startTimeUnixNano),
          endMs: ms(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
          status: { code: s.status?.code ?? 0, ...(s.status?.message ? { message: s.status.message } : {}) },
        });
      }
    }
  }
  return spans;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Export requests by content type. */
  requests: Map<string, number>;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
      requests.set(type, (requests.get(type) ?? 0) + 1);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      if (type === 'application/json') {
        try {
          spans.push(...decodeOtlpJson(JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpRequest));
        } catch {
          res.writeHead(400).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': type }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
