import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeKubeProtobuf } from './protobuf.ts';

// A minimal protobuf writer for the tests: fields as [number, value] where value is a string, a number
// (varint), a boolean, a nested field list, or a Buffer.
type Field = [number, string | number | boolean | Field[] | Buffer];

function varint(n: number): Buffer {
  const out: number[] = [];
  let v = BigInt.asUintN(64, BigInt(n));
  do {
    let b = Number(v & 0x7fn);
    v >>= 7n;
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
}

function encode(fields: Field[]): Buffer {
  const parts: Buffer[] = [];
  for (const [no, v] of fields) {
    if (typeof v === 'number' || typeof v === 'boolean') {
      parts.push(varint(no * 8), varint(Number(v)));
    } else {
      const b = typeof v === 'string' ? Buffer.from(v) : Buffer.isBuffer(v) ? v : encode(v);
      parts.push(varint(no * 8 + 2), varint(b.length), b);
    }
  }
  return Buffer.concat(parts);
}

function envelope(apiVersion: string, kind: string, raw: Field[]): Buffer {
  return Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    encode([
      [
        1,
        [
          [1, apiVersion],
          [2, kind],
        ],
      ],
      [2, encode(raw)],
    ]),
  ]);
}

test('decodes a Deployment as kubectl create deployment sends it: nested messages, maps, zero values', () => {
  const labels: Field[] = [
    [1, 'app'],
    [2, 'web'],
  ];
  const obj = decodeKubeProtobuf(
    envelope('apps/v1', 'Deployment', [
      [
        1,
        [
          [1, 'web'],
          [3, ''],
          [7, 0],
          [11, labels],
          [8, []],
        ],
      ],
      [
        2,
        [
          [1, 0], // replicas: a pointer in Go, so an explicit 0 is kept
          [2, [[1, labels]]], // selector.matchLabels
          [
            3,
            [
              [1, [[11, labels]]],
              [
                2,
                [
                  [
                    2,
                    [
                      [1, 'nginx'],
                      [2, 'nginx:1.27'],
                      [3, 'sleep'],
                      [3, '10'],
                      [
                        6,
                        [
                          [3, 80],
                          [2, 0],
                          [1, ''],
                        ],
                      ],
                      [16, false],
                      [
                        11,
                        [
                          [
                            1,
                            [
                              [
                                2,
                                [
                                  [1, '/readyz'],
                                  [
                                    2,
                                    [
                                      [1, 1],
                                      [3, 'http'],
                                    ],
                                  ],
                                ],
                              ],
                            ],
                          ],
                          [2, 5],
                        ],
                      ], // readinessProbe
                    ],
                  ],
                ],
              ],
            ],
          ],
          [5, 0], // minReadySeconds: not a pointer, zero means unset
        ],
      ],
    ]),
  );
  assert.deepEqual(obj, {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'nginx',
              image: 'nginx:1.27',
              command: ['sleep', '10'],
              ports: [{ containerPort: 80 }],
              readinessProbe: { httpGet: { path: '/readyz', port: 'http' }, initialDelaySeconds: 5 },
            },
          ],
        },
      },
    },
  });
});

test('secrets keep bytes as base64; unknown kinds are 415; garbage is 400', () => {
  const secret = decodeKubeProtobuf(
    envelope('v1', 'Secret', [
      [1, [[1, 's']]],
      [
        2,
        [
          [1, 'password'],
          [2, Buffer.from('s3cret')],
        ],
      ],
      [3, 'Opaque'],
    ]),
  );
  assert.deepEqual(secret.data, { password: Buffer.from('s3cret').toString('base64') });
  assert.equal(secret.type, 'Opaque');
  assert.throws(
    () => decodeKubeProtobuf(envelope('example.io/v1', 'Gadget', [])),
    (e: { code?: number }) => e.code === 415,
  );
  assert.throws(
    () => decodeKubeProtobuf(Buffer.from('not protobuf')),
    (e: { code?: number }) => e.code === 400,
  );
});

test('decodes DeleteOptions under any group version: a zero grace period, preconditions, dry run', () => {
  const body = envelope('apps/v1', 'DeleteOptions', [
    [1, 0],
    [
      2,
      [
        [1, 'uid-1'],
        [2, '42'],
      ],
    ],
    [3, false],
    [4, 'Foreground'],
    [5, 'All'],
  ]);
  assert.deepEqual(decodeKubeProtobuf(body), {
    apiVersion: 'apps/v1',
    kind: 'DeleteOptions',
    gracePeriodSeconds: 0,
    preconditions: { uid: 'uid-1', resourceVersion: '42' },
    orphanDependents: false,
    propagationPolicy: 'Foreground',
    dryRun: ['All'],
  });
  // What Helm sends: an empty message (every option left to the server).
  assert.deepEqual(decodeKubeProtobuf(envelope('v1', 'DeleteOptions', [])), {
    apiVersion: 'v1',
    kind: 'DeleteOptions',
  });
});
