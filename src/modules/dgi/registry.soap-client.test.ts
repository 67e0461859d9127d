/**
 * EFACCONSULTARRUCEMISORES (plain and COMPRIMIDO, BRIEF 7): the real client against the simulator
 * over loopback, with WS-Security; the audit filter; the compressed payload's decoding.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startDgiSimulator, type DgiSimulator } from './dgi.simulator.ts';
import { decodeCompressedRegistry, RegistrySoapClient } from './registry.soap-client.ts';
import { DgiPermanentError } from './dgi.errors.ts';
import { postSoap } from './http-post.ts';
import { soapEnvelope } from './dgi.soap.ts';

let sim: DgiSimulator;
let client: RegistrySoapClient;
const EPOCH = '2000-01-01T00:00:00';

before(async () => {
  sim = await startDgiSimulator();
  const company = sim.control.issueCompanyCertificate('211234560019', 'Consulta SA');
  client = new RegistrySoapClient({ endpoint: sim.urls.consultas, credentials: company, timeoutMs: 5000 });
});
after(async () => sim?.close());

describe('registry of electronic issuers', () => {
  test('plain: the Testing issuers with their dates and mail; the cancelled one has FECHA_FIN', async () => {
    const all = await client.issuers({ changedSince: EPOCH });
    const dgi = all.find((i) => i.RUC === '219999830019');
    assert.deepEqual(dgi, { RUC: '219999830019', DENOMINACION: 'DGI-RUC PRUEBA CEDE', FECHA_INICIO: '2011-10-01', FECHA_FIN_TRANSICION: '2012-10-01', FECHA_FIN: null, MAIL: 'cfe.219999830019@example.com.uy' });
    assert.equal(all.find((i) => i.RUC === '210094030014')?.FECHA_FIN, '2024-12-31');
  });

  test('compressed variant answers the same list as the plain one', async () => {
    sim.control.registry.set({ RUC: '212223240018', DENOMINACION: 'ÑANDÚ & CÍA SA', FECHA_INICIO: '2025-03-01', FECHA_FIN_TRANSICION: null, FECHA_FIN: null, MAIL: 'intercambio@nandu.com.uy' });
    const plain = await client.issuers({ changedSince: EPOCH });
    const compressed = await client.issuers({ changedSince: EPOCH, compressed: true });
    assert.deepEqual(compressed, plain);
    assert.equal(compressed.find((i) => i.RUC === '212223240018')?.DENOMINACION, 'ÑANDÚ & CÍA SA');
    const raw = sim.control.submissions().at(-1)!;
    assert.equal(raw.service, 'EFACCONSULTARRUCEMISORESCOMPRIMIDO');
  });

  test('the audit filter returns only entries changed since; a CAE makes its holder an issuer', async () => {
    const before = new Date(Date.now() - 3 * 3600_000 - 1000).toISOString().slice(0, 19);
    assert.equal((await client.issuers({ changedSince: before })).some((i) => i.RUC === '219999830019'), false);
    sim.control.issueCae({ rucEmisor: '215550001114', tipoCfe: 111, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2030-12-31' });
    const changed = await client.issuers({ changedSince: before, compressed: true });
    const holder = changed.find((i) => i.RUC === '215550001114');
    assert.ok(holder, JSON.stringify(changed));
    assert.match(holder.FECHA_INICIO ?? '', /^\d{4}-\d{2}-\d{2}$/);
    assert.equal((await client.issuers({ changedSince: EPOCH, ruc: '219000090011' })).length, 1);
  });

  test('an unsigned request is refused (WS-Security)', async () => {
    const body = '<dgi:WS_eFactura_Consultas.EFACCONSULTARRUCEMISORES><dgi:Consultarucemisores><dgi:Filtro_eFacRUCEmisorAudFchHora>2000-01-01T00:00:00</dgi:Filtro_eFacRUCEmisorAudFchHora></dgi:Consultarucemisores></dgi:WS_eFactura_Consultas.EFACCONSULTARRUCEMISORES>';
    const r = await postSoap('WS_eFactura_Consultas', sim.urls.consultas, soapEnvelope(body, { dgi: 'http://dgi.gub.uy' }), 'x', 5000);
    assert.ok('fault' in r && r.fault.codigo === 101, JSON.stringify(r));
  });

  test('a compressed payload that is not gzip + base64 is a permanent error; a valid one decodes', () => {
    assert.throws(() => decodeCompressedRegistry('not base64 gzip'), DgiPermanentError);
    const xml = '<Rucemisoresmail><RucEmisoresMail.RucEmisoresMailItem><RUC>219999830019</RUC><DENOMINACION>X</DENOMINACION><FECHA_INICIO>2011-10-01</FECHA_INICIO><FECHA_FIN>0001-01-01</FECHA_FIN><MAIL>a@b.uy</MAIL></RucEmisoresMail.RucEmisoresMailItem></Rucemisoresmail>';
    assert.deepEqual(decodeCompressedRegistry(gzipSync(xml).toString('base64')), [
      { RUC: '219999830019', DENOMINACION: 'X', FECHA_INICIO: '2011-10-01', FECHA_FIN_TRANSICION: null, FECHA_FIN: null, MAIL: 'a@b.uy' },
    ]);
  });
});
