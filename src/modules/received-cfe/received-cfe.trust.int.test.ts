/**
 * The issuer's certificate must chain to an accredited CA (the certificates module's trust store):
 * in DGI_MODE=real an envelope signed with another one is answered BS S03; in simulator mode the
 * finding is recorded as a warning check and the envelope is processed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { buildEnvioCfeEntreEmpresas, createSigningContext, formatTmstFirma, sampleCfe, signCfe } from '../emission/index.js';

const RECEIVER = '214844360018'; // sampleCfe's e-Factura receiver
const apps: TestApp[] = [];
after(async () => Promise.all(apps.map((t) => t.close())));

/** An envelope of one e-Factura signed with a certificate of a CA nobody accredited. */
function untrustedEnvelope(): string {
  const cert = issueTestCertificate(createTestCa(), { rut: '219999830019', name: 'Empresa Demo S.A.' });
  const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
  const cfe = signCfe(sampleCfe(111, { Nro: 7 }), ctx).xml;
  return buildEnvioCfeEntreEmpresas({ rutReceptor: RECEIVER, rucEmisor: '219999830019', idEmisor: 5, fecha: formatTmstFirma(new Date()), certificateDerBase64: ctx.certificate.der.toString('base64'), items: [{ cfe }] });
}

async function importInto(env: Record<string, string>) {
  const t = await createTestApp(env);
  apps.push(t);
  const admin = await t.adminToken();
  const company = await insertCompany(t, { rut: RECEIVER });
  return t.call(admin, 'POST', '/api/v1/cferecibido/importar', { idEmpresa: company.id, xml: untrustedEnvelope() });
}

describe('errors', () => {
  test('DGI_MODE=real: an issuer certificate outside the accredited CAs is BS S03, nothing registered', async () => {
    const r = await importInto({ DGI_MODE: 'real' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.sobre.estado, 'BS');
    assert.equal(r.body.sobre.motivos[0].codigo, 'S03');
    assert.deepEqual(r.body.cfes, []);
  });

  test('simulator mode: the same envelope is processed and the finding is a recorded warning', async () => {
    const r = await importInto({});
    assert.equal(r.body.sobre.estado, 'AS');
    const check = r.body.cfes[0].sobre.verificaciones.find((v: { control: string }) => v.control === 'confianza_certificado');
    assert.equal(check.ok, false);
    assert.match(check.detalle, /advertencia/);
    assert.equal(r.body.cfes[0].estado, 'pendiente');
  });
});
