/**
 * Real clients ↔ simulator over loopback: the same code paths production uses, minus TLS.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setImmediate as setImmediatePromise, setTimeout as sleep } from 'node:timers/promises';
import { X509Certificate } from 'node:crypto';
import { validateXml } from '../../platform/xml/xsd.ts';
import { BcuSoapClient } from './bcu.soap-client.ts';
import { DgiPermanentError, DgiTransientError, isTransientDgiError } from './dgi.errors.ts';
import { DgiSoapReceptionClient } from './dgi.soap-client.ts';
import { createWsSecurity, escapeXml, signEnvelope, soapEnvelope, xml10LineSeparatorsAsReferences } from './dgi.soap.ts';
import { startDgiSimulator, type DgiSimulator } from './dgi.simulator.ts';
import { loadPkcs12 } from '../../platform/crypto/pki.ts';
import { createSelfSignedCertificate } from '../../platform/crypto/test-ca.ts';
import { envelope, signedCfc, signedTicket, zeroReport, type Signer } from './dgi.test-helpers.ts';
import { SignedXml } from 'xml-crypto';
import { DOMParser } from '@xmldom/xmldom';
import { postSoap } from './http-post.ts';
import { RutSoapClient } from './rut.soap-client.ts';
import { verifyEnveloped } from './simulator/xmldsig.ts';
import { uyDate } from './simulator/efactura-service.ts';

// Recorded from the file's start: util.deprecate warns once per process, at the first call.
const deprecations: string[] = [];
process.on('warning', (w) => w.name === 'DeprecationWarning' && deprecations.push(`${(w as { code?: string }).code ?? ''} ${w.message}`));

const RUC = '211234560019';
let sim: DgiSimulator;
let company: Signer;
let dgi: DgiSoapReceptionClient;
let idEmisor = 1;

before(async () => {
  sim = await startDgiSimulator({ port: 0 });
  company = sim.control.issueCompanyCertificate(RUC, 'Empresa Simulada SA');
  sim.control.addRut({
    RUT: RUC,
    Denominacion: 'EMPRESA SIMULADA SA',
    NombreFantasia: null,
    TipoEntidad: '3',
    DescripcionTipoEntidad: 'SOCIEDAD ANONIMA',
    EstadoActividad: 'AA',
    FechaInicioActividad: '2020-01-01',
    address: null,
    activities: [],
  });
  sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
  dgi = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
});
after(() => sim.close());

const ticket = (nro: number, serie = 'A') => signedTicket(company, { rucEmisor: RUC, serie, nro });
const send = (cfes: string[], extra: { cantCfe?: number } = {}) =>
  dgi.sendEnvelope(envelope(company, { rucEmisor: RUC, idEmisor: idEmisor++, cfes, ...extra }));

async function statusOf(idReceptor: string, token: string) {
  const status = await dgi.queryEnvelopeStatus(idReceptor, token);
  assert.equal(status.ready, true);
  if (!status.ready) throw new Error('unreachable');
  return status;
}

describe('WS_eFactura', () => {
  test('accepted envelope: AS, then AE; ACKs are XSD-valid and signed by the simulator', async () => {
    const ack = await send([ticket(1)]);
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    assert.equal(ack.caratula.RUCEmisor, RUC);
    assert.ok(ack.paramConsulta?.Token);
    assert.deepEqual(validateXml('ACKSobre', ack.xml), { ok: true });
    assert.deepEqual(verifyEnveloped(ack.xml, sim.control.dgiCertificatePem), { ok: true });

    const status = await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.deepEqual(validateXml('ACKCFE_DGI', status.xml), { ok: true });
    assert.deepEqual(verifyEnveloped(status.xml, sim.control.dgiCertificatePem), { ok: true });
    assert.equal(status.caratula.CantCFEAceptados, 1);
    assert.deepEqual(
      status.detalles.map((d) => [d.TipoCFE, d.Serie, d.NroCFE, d.Estado]),
      [['101', 'A', '1', 'AE']],
    );
  });

  test('tampered CFE signature: AS, then BE E04', async () => {
    const tampered = ticket(2).replace(/(<ns0:MntNoGrv>)420(<)/, '$1421$2');
    const ack = await send([tampered]);
    assert.equal(ack.Estado, 'AS');
    const status = await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.equal(status.detalles[0].Estado, 'BE');
    assert.equal(status.detalles[0].motivos[0].Motivo, 'E04');
    assert.equal(status.detalles[0].motivos[0].Glosa, 'Firma electrónica no es válida');
  });

  test('a CFE signed with a self-signed certificate: AS, then BE E04 "certificate not trusted" (BRIEF 3)', async () => {
    const self = createSelfSignedCertificate({ rut: RUC, name: 'Empresa Simulada SA' });
    const signer = { privateKeyPem: self.keyPem, certificatePem: self.certPem };
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: signer, timeoutMs: 5000 });
    const ack = await client.sendEnvelope(envelope(signer, { rucEmisor: RUC, idEmisor: idEmisor++, cfes: [signedTicket(signer, { rucEmisor: RUC, serie: 'A', nro: 90 })] }));
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    if (!status.ready) return;
    assert.deepEqual(validateXml('ACKCFE_DGI', status.xml), { ok: true });
    assert.equal(status.detalles[0].Estado, 'BE');
    assert.deepEqual(status.detalles[0].motivos.map((m) => m.Motivo), ['E04']);
    assert.equal(status.detalles[0].motivos[0].Glosa, 'Firma electrónica no es válida');
    assert.match(status.detalles[0].motivos[0].Detalle ?? '', /^certificate not trusted: el certificado es autofirmado/);
    // The same number signed with the simulator's own (trusted) certificate is accepted: only trust differed.
    const again = await send([ticket(90)]);
    assert.equal((await statusOf(again.caratula.IDReceptor, again.paramConsulta!.Token)).detalles[0].Estado, 'AE');
  });

  test('CAE range and duplicates: E03 outside the range or serie, E02 on resend', async () => {
    const ack = await send([ticket(101), ticket(1, 'Z'), ticket(3), ticket(3)]);
    const status = await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.deepEqual(
      status.detalles.map((d) => [d.Estado, d.motivos.map((m) => m.Motivo).join()]),
      [['BE', 'E03'], ['BE', 'E03'], ['AE', ''], ['BE', 'E02']],
    );
  });

  test('issuer without any CAE for the type: E09', async () => {
    const ruc2 = '210465050018';
    const other = sim.control.issueCompanyCertificate(ruc2, 'Sin CAE SA');
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: other });
    const ack = await client.sendEnvelope(envelope(other, { rucEmisor: ruc2, idEmisor: 1, cfes: [signedTicket(other, { rucEmisor: ruc2, serie: 'A', nro: 1 })] }));
    const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    assert.equal(status.detalles[0].motivos[0].Motivo, 'E09');
  });

  test('CFC (2xx) is observed, never rejected: tampered signature gives CE C04', async () => {
    const good = signedCfc(company, RUC);
    const bad = signedCfc(company, RUC).replace(/(<ns0:Nro>)(\d+)(<)/, '$1953002$3');
    const ack = await send([good, bad]);
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    const status = await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.deepEqual(status.detalles.map((d) => [d.TipoCFE, d.Estado]), [['281', 'AE'], ['281', 'CE']]);
    assert.equal(status.detalles[1].motivos[0].Motivo, 'C04');
    assert.equal(status.caratula.CantCFCObservados, 1);
    assert.deepEqual(validateXml('ACKCFE_DGI', status.xml), { ok: true });
  });

  test('company certificate from the simulator opens with platform loadPkcs12', () => {
    const issued = sim.control.issueCompanyCertificate('219999820013', 'Demo SA');
    const loaded = loadPkcs12(issued.p12, issued.password);
    assert.match(new X509Certificate(loaded.certificatePem).subject, /serialNumber=RUC219999820013/);
    assert.equal(loaded.chainPem.length, 1);
  });

  test('rejectNext scripts a rejection for one CFE only', async () => {
    sim.control.rejectNext({ tipoCFE: 101, serie: 'A', nro: 4 }, ['E06']);
    const ack = await send([ticket(4), ticket(5)]);
    const status = await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.deepEqual(status.detalles.map((d) => d.Estado), ['BE', 'AE']);
    assert.equal(status.detalles[0].motivos[0].Motivo, 'E06');
  });

  test('wrong CantCFE: BS S05', async () => {
    const ack = await send([ticket(6)], { cantCfe: 2 });
    assert.equal(ack.Estado, 'BS');
    assert.equal(ack.motivos[0].Motivo, 'S05');
    assert.equal(ack.paramConsulta, null);
    assert.deepEqual(validateXml('ACKSobre', ack.xml), { ok: true });
  });

  test('schema violation: BS S04', async () => {
    const ack = await dgi.sendEnvelope(envelope(company, { rucEmisor: RUC, idEmisor: idEmisor++, cfes: [] }));
    assert.equal(ack.Estado, 'BS');
    assert.equal(ack.motivos[0].Motivo, 'S04');
  });

  test('duplicate envelope (same RUC + Idemisor): BS S08', async () => {
    const xml = envelope(company, { rucEmisor: RUC, idEmisor: 9000, cfes: [ticket(7)] });
    assert.equal((await dgi.sendEnvelope(xml)).Estado, 'AS');
    const second = await dgi.sendEnvelope(xml);
    assert.equal(second.Estado, 'BS');
    assert.equal(second.motivos[0].Motivo, 'S08');
    const sobres = sim.control.submissions().filter((s) => s.service === 'EFACRECEPCIONSOBRE' && s.xmlData === xml);
    assert.deepEqual(sobres.map((s) => s.ackEstado), ['AS', 'BS']);
  });

  test('certificate of another RUC: BS S02', async () => {
    const other = sim.control.issueCompanyCertificate('219999820013', 'Otra SA');
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: other });
    const ack = await client.sendEnvelope(envelope(other, { rucEmisor: RUC, idEmisor: idEmisor++, cfes: [signedTicket(other, { rucEmisor: RUC, serie: 'A', nro: 8 })] }));
    assert.equal(ack.Estado, 'BS');
    assert.equal(ack.motivos[0].Motivo, 'S02');
  });

  test('not ready (fault 105) until Fechahora, then ready', async () => {
    sim.control.setAckDelay(400);
    try {
      const ack = await send([ticket(9)]);
      const early = await dgi.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
      assert.deepEqual(early.ready ? null : early.codigo, 105);
      await sleep(450);
      assert.equal((await statusOf(ack.caratula.IDReceptor, ack.paramConsulta!.Token)).detalles[0].Estado, 'AE');
    } finally {
      sim.control.setAckDelay(0);
    }
  });

  test('wrong token: permanent fault 3', async () => {
    const ack = await send([ticket(10)]);
    await assert.rejects(dgi.queryEnvelopeStatus(ack.caratula.IDReceptor, 'b3RybyB0b2tlbg=='), (e: unknown) => {
      assert.ok(e instanceof DgiPermanentError);
      assert.equal(e.faultCode, 3);
      return true;
    });
  });

  test('daily report: AR, then R05 on a repeated SecEnvio, R06 for a future date', async () => {
    const first = await dgi.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 1 }));
    assert.equal(first.Estado, 'AR', JSON.stringify(first.motivos));
    assert.deepEqual(validateXml('ACKRepDiario', first.xml), { ok: true });
    const again = await dgi.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 1 }));
    assert.equal(again.Estado, 'BR');
    assert.equal(again.motivos[0].Motivo, 'R05');
    assert.equal((await dgi.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 2 }))).Estado, 'AR');
    const future = await dgi.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 1, fechaResumen: uyDate(Date.now() + 3 * 86_400_000) }));
    assert.equal(future.motivos[0].Motivo, 'R06');
  });

  test('unsigned SOAP request: fault, no ACK', async () => {
    const body = '<dgi:WS_eFactura.EFACRECEPCIONSOBRE xmlns:dgi="http://dgi.gub.uy"><dgi:Datain><dgi:xmlData>x</dgi:xmlData></dgi:Datain></dgi:WS_eFactura.EFACRECEPCIONSOBRE>';
    const result = await postSoap('WS_eFactura', sim.urls.efactura, soapEnvelope(body), 'http://dgi.gub.uyaction/AWS_EFACTURA.EFACRECEPCIONSOBRE', 5000);
    assert.ok('fault' in result);
    assert.equal(result.fault.codigo, 101);
    assert.match(result.fault.detalle ?? '', /No signature in message!/);
  });

  test('WS-Security made on the request\'s bytes verifies with xml-crypto too (rsa-sha1 and rsa-sha256, U+2028 and non-ASCII text)', async () => {
    for (const algorithm of ['sha1', 'sha256'] as const) {
      const body = `<WS_eFactura.EFACRECEPCIONSOBRE xmlns="http://dgi.gub.uy"><Datain><xmlData>${escapeXml('<a>línea\u2028otra & ñ</a>')}</xmlData></Datain></WS_eFactura.EFACRECEPCIONSOBRE>`;
      const signed = signEnvelope(soapEnvelope(body), createWsSecurity({ ...company, algorithm }));
      assert.match(signed, /<soapenv:Body xmlns:wsu="[^"]+" wsu:Id="_0">/);
      // xmldom reads U+2028 as a line end unless written as a reference (dgi.soap.ts).
      const xml = xml10LineSeparatorsAsReferences(signed);
      const verifier = new SignedXml({ publicCert: company.certificatePem, getCertFromKeyInfo: () => null });
      verifier.loadSignature(new DOMParser().parseFromString(xml, 'text/xml').getElementsByTagNameNS('http://www.w3.org/2000/09/xmldsig#', 'Signature')[0] as unknown as Node);
      assert.equal(verifier.checkSignature(xml), true, algorithm);
    }
  });

  test('WS-Security signature that does not match the request: fault 101, no ACK', async () => {
    const body = '<dgi:WS_eFactura.EFACRECEPCIONSOBRE xmlns:dgi="http://dgi.gub.uy"><dgi:Datain><dgi:xmlData>x</dgi:xmlData></dgi:Datain></dgi:WS_eFactura.EFACRECEPCIONSOBRE>';
    const signed = signEnvelope(soapEnvelope(body), createWsSecurity(company));
    const post = (xml: string) => postSoap('WS_eFactura', sim.urls.efactura, xml, 'http://dgi.gub.uyaction/AWS_EFACTURA.EFACRECEPCIONSOBRE', 5000);
    const bodyChanged = await post(signed.replace('<dgi:xmlData>x<', '<dgi:xmlData>y<'));
    assert.ok('fault' in bodyChanged);
    assert.equal(bodyChanged.fault.codigo, 101);
    assert.match(bodyChanged.fault.detalle ?? '', /digest/);
    const value = /<ds:SignatureValue>([^<]+)</.exec(signed)![1];
    const forged = value.slice(0, 10) + (value[10] === 'A' ? 'B' : 'A') + value.slice(11);
    const signatureChanged = await post(signed.replace(value, forged));
    assert.ok('fault' in signatureChanged);
    assert.match(signatureChanged.fault.detalle ?? '', /signature does not verify/);
    const unreferenced = await post(signed.replace(/wsu:Id="([^"]+)">(<dgi:WS_eFactura)/, 'wsu:Id="other">$2'));
    assert.ok('fault' in unreferenced);
    assert.match(unreferenced.fault.detalle ?? '', /does not cover soapenv:Body/);
  });

  test('simulator down: transient errors (reset and 503)', async () => {
    for (const mode of ['reset', '503'] as const) {
      sim.control.setDown(mode);
      try {
        await assert.rejects(send([ticket(11)]), (e: unknown) => e instanceof DgiTransientError && isTransientDgiError(e));
      } finally {
        sim.control.setDown(false);
      }
    }
  });

  test('CAE issued by the simulator validates against CAE.xsd and verifies', () => {
    const { xml, NA } = sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 111, serie: 'B', desde: 1, hasta: 10, fechaVencimiento: '2028-01-31' });
    assert.match(NA, /^90\d{9}$/);
    assert.deepEqual(validateXml('CAE', xml), { ok: true });
    assert.deepEqual(verifyEnveloped(xml, sim.control.dgiCertificatePem), { ok: true });
  });
});

describe('RUT lookup', () => {
  const rut = () => new RutSoapClient({ endpoint: sim.urls.rut, credentials: company, timeoutMs: 5000 });

  test('found: DGI Testing RUT with address and activities', async () => {
    const info = await rut().lookup('219000090011');
    assert.equal(info?.Denominacion, 'DGI RUC PRUEBA CEDE Y DIRECCION GENERAL IMPOSITIVA');
    assert.equal(info?.EstadoActividad, 'AA');
    assert.equal(info?.FechaInicioActividad, '2006-09-27');
    assert.equal(info?.address?.department, 'LAVALLEJA');
    assert.equal(info?.address?.number, '6855');
    assert.equal(info?.activities.length, 1);
  });

  test('not found, invalid, cancelled', async () => {
    assert.equal(await rut().lookup('219999999999'), null);
    assert.deepEqual(await rut().lookupDetailed('219999999999'), { kind: 'not-found', codigo: 14 });
    assert.deepEqual(await rut().lookupDetailed('1234'), { kind: 'invalid', codigo: 5 });
    assert.deepEqual(await rut().lookupDetailed('210094030014'), { kind: 'inactive', codigo: 11, EstadoActividad: 'CC' });
  });

  test('transport failure is transient', async () => {
    const client = new RutSoapClient({ endpoint: 'http://127.0.0.1:1/x', credentials: company, timeoutMs: 1000 });
    await assert.rejects(client.lookup('219000090011'), DgiTransientError);
  });
});

describe('BCU rates', () => {
  const bcu = () => new BcuSoapClient({ endpoint: sim.urls.bcu, timeoutMs: 5000 });

  test('weekday quote is the TCC for that date', async () => {
    const rate = await bcu().getRate('USD', '2026-07-08'); // Wednesday
    assert.equal(rate?.date, '2026-07-08');
    assert.equal(rate?.currencyCode, 2225);
    assert.match(rate?.rate ?? '', /^\d+\.\d{3}$/);
  });

  test('weekend falls back to Friday; overrides and empty windows', async () => {
    const rate = await bcu().getRate('EUR', '2026-07-12'); // Sunday
    assert.equal(rate?.date, '2026-07-10');
    sim.control.setRate(2225, '2026-07-10', '40.123');
    assert.deepEqual(await bcu().getRate('USD', '2026-07-11'), { rate: '40.123', date: '2026-07-10', source: 'BCU', currencyCode: 2225 });
    const tight = new BcuSoapClient({ endpoint: sim.urls.bcu, maxWalkBackDays: 1 });
    assert.equal(await tight.getRate('USD', '2026-07-12'), null);
  });
});

describe('console', () => {
  test('signing with WS-Security prints no deprecation notice of the soap library\'s internals (XML_CRYPTO_GET_ORIGINAL_XML_WITH_IDS)', async () => {
    await send([ticket(90)]);
    await setImmediatePromise();
    assert.deepEqual(deprecations.filter((d) => d.includes('XML_CRYPTO')), []);
  });
});
