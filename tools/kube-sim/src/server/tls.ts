// kube-sim's TLS identity: a CA and a serving certificate for 127.0.0.1, ::1 and localhost, generated when
// the process first starts a kube-sim (node-forge; nothing hand-rolled), kept in memory only, and trusted
// only through the kubeconfigs kube-sim writes (the CA is their certificate-authority-data). So no private
// key lives in the repository, and a certificate is never older than the process that serves it.
import forge from 'node-forge';

export interface TlsIdentity {
  /** PEM of the CA that signed `cert`: what kubeconfigs trust. */
  caCert: string;
  /** PEM of the serving certificate (SANs 127.0.0.1, ::1, localhost). */
  cert: string;
  /** PEM of the serving certificate's private key. */
  key: string;
}

const VALID_DAYS = 365;

function validity(c: forge.pki.Certificate, from: Date): void {
  // An hour back, so that a client whose clock is a little behind still accepts it.
  c.validity.notBefore = new Date(from.getTime() - 3_600_000);
  c.validity.notAfter = new Date(from.getTime() + VALID_DAYS * 86_400_000);
}

export function serial(): string {
  // Positive and minimally encoded (leading nibble 1-7), 16 random bytes, as RFC 5280 asks of a serial
  // number: a leading 0x00 byte would be a non-minimal DER integer, which Go's x509 (kubectl) refuses as
  // "malformed serial number".
  const hex = forge.util.bytesToHex(forge.random.getBytesSync(16));
  return `${(parseInt(hex[0] ?? '0', 16) % 7) + 1}${hex.slice(1)}`;
}

/** A new CA and a serving certificate signed by it. RSA 2048 keys (node-forge uses Node's own key generation). */
export function generateTlsIdentity(now = new Date()): TlsIdentity {
  const caKeys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serial();
  validity(ca, now);
  const caName = [{ name: 'commonName', value: 'kube-sim CA' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const keys = forge.pki.rsa.generateKeyPair({ bits: 2048 });
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serial();
  validity(cert, now);
  cert.setSubject([{ name: 'commonName', value: 'kube-sim' }]);
  cert.setIssuer(caName);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 7, ip: '::1' },
        { type: 2, value: 'localhost' },
      ],
    },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  cert.sign(caKeys.privateKey, forge.md.sha256.create());
  return {
    caCert: forge.pki.certificateToPem(ca),
    cert: forge.pki.certificateToPem(cert),
    key: forge.pki.privateKeyToPem(keys.privateKey),
  };
}

let shared: TlsIdentity | undefined;

/**
 * The identity of every kube-sim this process starts: generated once (two RSA keys take ~0.2 s, and a
 * test process may start several simulators), then reused.
 */
export function processTlsIdentity(): TlsIdentity {
  return (shared ??= generateTlsIdentity());
}
