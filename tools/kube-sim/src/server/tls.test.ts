import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { test } from 'node:test';
import { generateTlsIdentity, processTlsIdentity, serial } from './tls.ts';

test('a generated identity: a CA, and a serving certificate it signed for 127.0.0.1, ::1 and localhost', () => {
  const now = new Date('2026-11-25T12:00:00Z');
  const id = generateTlsIdentity(now);
  const ca = new X509Certificate(id.caCert);
  const cert = new X509Certificate(id.cert);
  assert.equal(ca.ca, true, 'the CA is a CA');
  assert.equal(cert.ca, false, 'the serving certificate is not');
  assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), 'signed by the CA');
  assert.ok(ca.verify(ca.publicKey), 'the CA is self-signed');
  assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
  assert.equal(cert.checkIP('::1'), '::1');
  assert.equal(cert.checkHost('localhost'), 'localhost');
  assert.equal(cert.checkHost('example.com'), undefined);
  assert.ok(
    Date.parse(cert.validFrom) < now.getTime() && Date.parse(cert.validTo) > now.getTime() + 300 * 86_400_000,
  );
  // The key is the certificate's.
  const pub = createPublicKey(createPrivateKey(id.key)).export({ format: 'der', type: 'spki' });
  assert.deepEqual(pub, cert.publicKey.export({ format: 'der', type: 'spki' }));
});

test('each generation is new; one process reuses its own', () => {
  assert.notEqual(generateTlsIdentity().key, generateTlsIdentity().key);
  assert.equal(processTlsIdentity(), processTlsIdentity());
});

test('serial numbers are positive and minimally encoded (kubectl refuses a leading zero byte)', () => {
  for (let i = 0; i < 200; i++) {
    const s = serial();
    assert.equal(s.length, 32);
    assert.match(s, /^[1-7][0-9a-f]{31}$/);
  }
});
