/** CERT_TRUST_ANCHORS is read at startup: a bad path stops the process with a message naming the variable. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { createSelfSignedCertificate } from '../../platform/crypto/test-ca.ts';
import { createCertificateTrust } from './certificates.trust.ts';

test('a missing or unreadable CERT_TRUST_ANCHORS stops startup naming the variable', () => {
  assert.throws(() => createCertificateTrust({ mode: 'real', extraAnchorsPath: '/nonexistent/anchors.pem' }), /^Error: CERT_TRUST_ANCHORS: \/nonexistent\/anchors.pem: no such file/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anchors-'));
  try {
    fs.writeFileSync(path.join(dir, 'bad.pem'), '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n');
    assert.throws(() => createCertificateTrust({ mode: 'real', extraAnchorsPath: dir }), /CERT_TRUST_ANCHORS: .*bad\.pem: not a certificate/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a pinned certificate in CERT_TRUST_ANCHORS is trusted; the same certificate without it is not', async () => {
  const self = createSelfSignedCertificate({ rut: '210000000012', name: 'Fijada SA' });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'anchors-'));
  try {
    fs.writeFileSync(path.join(dir, 'pinned.pem'), self.certPem);
    assert.deepEqual(await createCertificateTrust({ mode: 'real', extraAnchorsPath: dir }).check(self.certPem, []), []);
    const [finding] = await createCertificateTrust({ mode: 'real' }).check(self.certPem, []);
    assert.equal(finding.codigo, 'CERTIFICADO_AUTOFIRMADO');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
