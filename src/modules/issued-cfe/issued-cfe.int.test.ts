/** emitir end to end through the real app: numbering, XML, signature, XSD, persistence, GETs, idempotency. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { verifyXmlSignature } from '../emission/index.js';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let certPem: string;
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

const line = (extra: Record<string, unknown> = {}) => ({ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90', ...extra });
const req = (cfe: Record<string, unknown>, idEmpresa = company.id) => ({ idEmpresa, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [line()], ...cfe } });
const emit = (body: unknown, token = admin, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: '/api/v1/comprobante/emitir', payload: body as object, headers: { authorization: `Bearer ${token}`, ...headers } }).then((r) => ({ status: r.statusCode, body: r.json(), headers: r.headers }));

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  other = await insertCompany(t);
  ({ certPem } = await setUpIssuer(t.db, t.call, admin, company));
  await setUpIssuer(t.db, t.call, admin, other);
});
after(async () => t.close());

/** One request per CFE type (BRIEF 2.1 branches), as the cases of the type tests. */
function typeCases(): Array<[number, Record<string, unknown>]> {
    const rucRecep = { documento: '214844360018', razonSocial: 'Cliente SA', direccion: 'Calle 2', ciudad: 'Montevideo' };
    const ext = { documento: 'AR-30712345678', tipoDocumento: 4, codPais: 'AR', razonSocial: 'Importadora', direccion: 'Corrientes 1', ciudad: 'Buenos Aires', departamento: 'CABA', pais: 'Argentina' };
    const ref = { referencias: [{ tipoCfe: 111, serie: 'A', numero: 1, razon: 'Devolución' }] };
    return [
      [101, {}], [102, { ...ref }], [103, { ...ref }],
      [111, { receptor: rucRecep }], [112, { receptor: rucRecep, ...ref }], [113, { receptor: rucRecep, ...ref }],
      [121, { idDoc: { tipoCfe: 121, fechaEmision: today, clauVenta: 'FOB', viaTransp: 1, modVenta: 1 }, receptor: ext, totales: { tipoMoneda: 'USD', tipoCambio: 39.5 }, detalles: [line({ indicadorFacturacion: 10 })] }],
      [124, { idDoc: { tipoCfe: 124, fechaEmision: today, clauVenta: 'FOB', viaTransp: 3, modVenta: 1 }, receptor: ext, totales: { tipoMoneda: 'USD', tipoCambio: 39.5 }, detalles: [{ nombreItem: 'Lana', cantidad: 5, precioUnitario: 3, unidadMedida: 'kg' }] }],
      [131, { complementoFiscal: { tipoDocMandante: 2, pais: 'UY', documentoMandante: '211111110014', nombreMandante: 'Mandante SA' } }],
      [141, { receptor: rucRecep, complementoFiscal: { tipoDocMandante: 2, pais: 'UY', documentoMandante: '211111110014', nombreMandante: 'Mandante SA' } }],
      [151, { receptor: { documento: '13353214', tipoDocumento: 3, razonSocial: 'Juan' }, detalles: [line({ indicadorFacturacion: 13 })] }],
      [181, { receptor: rucRecep, detalles: [{ nombreItem: 'Manzanas', cantidad: 10, unidadMedida: 'kg' }] }],
      [182, { receptor: rucRecep, detalles: [{ retencPercep: [{ codRet: '2183165', tasa: 50, mntSujetoaRet: 22000, valRetPerc: 11000 }] }], ...{ referencias: [{ tipoCfe: 111, serie: 'A', numero: 1 }] } }],
    ];
}

function assertValidSigned(xml: string) {
  assert.deepEqual(validateXml('CFE', xml), { ok: true });
  assert.equal(verifyXmlSignature(xml, { certificate: certPem }).valid, true);
}

describe('happy path', () => {
  test('e-Ticket without totales nor emisor: issuer from company+branch, totals computed, signed, stored', async () => {
    const r = await emit(req({}));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const v = r.body;
    assert.equal(v.tipoCfe, 101);
    assert.equal(v.serie, 'A');
    assert.equal(typeof v.numero, 'number');
    assert.match(v.cae.numero, /^\d{11}$/);
    assert.equal(v.cae.fechaVencimiento, '2027-12-31');
    assert.equal(v.codigoSeguridad, v.hash.slice(0, 6));
    assert.ok(v.urlQr.startsWith(`https://www.efactura.dgi.gub.uy/consultaQR/cfe?${company.rut},101,A,${v.numero},`));
    assert.ok(Buffer.from(v.qrPng, 'base64').subarray(1, 4).toString() === 'PNG');
    assert.equal(v.emisor.RUCEmisor, company.rut);
    assert.equal(v.emisor.CdgDGISucur, '2');
    assert.equal(v.totales.MntTotal, '463.36'); // 379.80 net + 22 % (prices without VAT)
    assert.equal(v.estado, 'firmado');
    const xml = await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${v.id}/xml`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(xml.statusCode, 200);
    assert.match(xml.headers['content-type'] as string, /application\/xml/);
    assertValidSigned(xml.body);
    const events = await t.db.execute(sql`select type, data from outbox_events where company_id = ${company.id} and type = 'Cfe.Emitido'`);
    assert.ok(events.rows.some((e: any) => e.data.idCfeEmitido === v.id && e.data.cae.numero && e.data.urlQr === v.urlQr && e.data.codigoSeguridad === v.codigoSeguridad && e.data.totales.MntPagar === v.totales.MntPagar));
    const byId = await t.call(admin, 'GET', `/api/v1/cfeemitido/${v.id}`);
    assert.equal(byId.status, 200);
    assert.equal(byId.body.numero, v.numero);
    // The GET is the emitir response plus the receiver state and the state history.
    const { historial, estadoReceptor, ...same } = byId.body;
    assert.deepEqual(same, v);
    assert.equal(estadoReceptor, null);
    assert.deepEqual(historial.map((h: { estado: string }) => h.estado), ['firmado']);
    const byQuery = await t.call(admin, 'GET', `/api/v1/comprobante/getByIdCfeEmitido?idCfeEmitido=${v.id}`);
    assert.equal(byQuery.body.hash, v.hash);
  });

  test('totales sent are used as sent; emisor with ruc is used', async () => {
    // Prices include VAT (mntBruto 1): 379.80 = 311.31 + 68.49, the sent totals match the lines (BRIEF 2.4).
    const r = await emit(req({ idDoc: { tipoCfe: 101, fechaEmision: today, mntBruto: 1 }, emisor: { ruc: company.rut, razonSocial: 'Nombre Enviado', domicilioFiscal: 'Calle 1', ciudad: 'Salto', departamento: 'Salto', codigoDgiSucursal: 9 }, totales: { tipoMoneda: 'UYU', mntNetoIVATasaBasica: '311.31', ivaTasaBasica: '22', mntIVATasaBasica: '68.49', mntTotal: '379.80', mntPagar: '379.80' } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.emisor.RznSoc, 'Nombre Enviado');
    assert.equal(r.body.emisor.CdgDGISucur, '9');
    assert.equal(r.body.totales.MntIVATasaBasica, '68.49');
  });

  test('lines within the DGI rules sign: consistent montoItem, free line at 0, valid GTIN, IndFact 4 with sent totales, DNI from AR', async () => {
    const lines = await emit(req({
      detalles: [
        line({ cantidad: 2, precioUnitario: '10', descuentoMonto: 1, montoItem: '19', codigoItem: [{ tpoCod: 'GTIN13', cod: '4006381333931' }] }),
        line({ indicadorFacturacion: 5, precioUnitario: 0, montoItem: 0 }),
      ],
      receptor: { documento: '30123456', tipoDocumento: 6, codPais: 'AR', razonSocial: 'Juan Pérez' },
    }));
    assert.equal(lines.status, 200, JSON.stringify(lines.body));
    assert.equal(lines.body.totales.CantLinDet, 2);
    const otra = await emit(req({ detalles: [line({ indicadorFacturacion: 4, cantidad: 1, precioUnitario: 100 })], totales: { mntNetoIVAOtra: '100', mntIVAOtra: '5', mntTotal: '105', mntPagar: '105', cantLinDet: 1 } }));
    assert.equal(otra.status, 200, JSON.stringify(otra.body));
    assert.equal(otra.body.totales.MntIVAOtra, '5');
    assertValidSigned((await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${otra.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body);
  });

  test('every CFE type issues, validates against the XSD and verifies (xmllint + xmlsec1 required)', async () => {
    const cases = typeCases();
    const dir = mkdtempSync(path.join(tmpdir(), 'cfe-xml-'));
    for (const [tipo, extra] of cases) {
      const body = req({ idDoc: { tipoCfe: tipo, fechaEmision: today }, ...extra });
      const r = await emit(body);
      assert.equal(r.status, 200, `${tipo}: ${JSON.stringify(r.body)}`);
      const xml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
      assertValidSigned(xml);
      writeFileSync(path.join(dir, `${tipo}.xml`), xml);
    }
    writeFileSync(path.join(dir, 'cert.pem'), certPem);
    // .ci/run installs both tools: a missing one is a failure, never a silent skip.
    const requireTool = (bin: string, debianPackage: string) => {
      try { execFileSync('which', [bin], { stdio: 'pipe' }); } catch { assert.fail(`${bin} not found: install the Debian package ${debianPackage} (apt-get install ${debianPackage})`); }
    };
    requireTool('xmlsec1', 'xmlsec1');
    requireTool('xmllint', 'libxml2-utils');
    for (const [tipo] of cases) execFileSync('xmlsec1', ['--verify', '--pubkey-cert-pem', path.join(dir, 'cert.pem'), path.join(dir, `${tipo}.xml`)], { stdio: 'pipe' });
    // xsd/SOURCE.md: xmldsig types X509SerialNumber as xs:integer and libxml2 rejects 39-digit serials: patched copy.
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(path.join(dir, name), content);
    const xsd = path.join(dir, 'CFEDGI.xsd');
    for (const [tipo] of cases) execFileSync('xmllint', ['--noout', '--nonet', '--schema', xsd, path.join(dir, `${tipo}.xml`)], { stdio: 'pipe' });
  });

  test('a receipt stored by the one-statement batch answers exactly what GET reads back, for every type', async () => {
    // The second receipt of a lane within a second is sealed ahead and stored in one statement
    // that does not read the row back (issued-cfe.fast-batch.ts): its answer must be the stored row.
    const before = t.modules.services.issuedCfe.emissionStats().forecastsHeld;
    for (const [tipo, extra] of typeCases()) {
      const body = req({ idDoc: { tipoCfe: tipo, fechaEmision: today }, ...extra, adenda: `Adenda ${tipo}` });
      const first = await emit(body);
      assert.equal(first.status, 200);
      const r = await emit(body, admin, { 'idempotency-key': `fast-${tipo}` });
      assert.equal(r.status, 200, `${tipo}: ${JSON.stringify(r.body)}`);
      const { estadoReceptor, historial, ...read } = (await t.call(admin, 'GET', `/api/v1/cfeemitido/${r.body.id}`)).body;
      assert.ok(historial && estadoReceptor !== undefined);
      assert.deepEqual(r.body, read, `${tipo}`);
      if (extra.referencias) assert.equal(r.body.referencias.length, 1, `${tipo}: the note prints its reference`);
      assert.equal(r.body.idDoc.Nro, String(r.body.numero), `${tipo}: idDoc as signed`);
      if (extra.complementoFiscal) assert.equal(r.body.complementoFiscal.NombreMdte, 'Mandante SA', `${tipo}: cuenta ajena prints its mandante`);
      else assert.equal(r.body.complementoFiscal, null);
      // Totales keys in the XML's order on both paths and in GET, not the jsonb column's.
      assert.deepEqual(Object.keys(r.body.totales), Object.keys(read.totales), `${tipo}`);
      assert.deepEqual(Object.keys(first.body.totales), Object.keys(read.totales), `${tipo}`);
      if ('TpoMoneda' in read.totales) assert.equal(Object.keys(read.totales)[0], 'TpoMoneda', `${tipo}`);
      assertValidSigned((await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body);
    }
    assert.ok(t.modules.services.issuedCfe.emissionStats().forecastsHeld - before >= typeCases().length, 'every second receipt took the one-statement path');
  });

  test('foreign currency: tipoCambio as sent, else the company rate table, else the central bank', async () => {
    const sent = await emit(req({ totales: { tipoMoneda: 'USD', tipoCambio: '40.123' } }));
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.tipoCambio, '40.123');
    await t.db.execute(sql`insert into exchange_rates (company_id, moneda, fecha, tipo_cambio) values (${company.id}, 'EUR', ${today}, 43.5)`);
    const table = await emit(req({ totales: { tipoMoneda: 'EUR' } }));
    assert.equal(table.status, 200, JSON.stringify(table.body));
    assert.equal(table.body.tipoCambio, '43.500');
    const sim = await t.modules.services.lookups.simulator();
    sim!.control.setRate(1001, today, '7.25');
    const bcu = await emit(req({ totales: { tipoMoneda: 'BRL' } }));
    assert.equal(bcu.status, 200, JSON.stringify(bcu.body));
    assert.equal(bcu.body.tipoCambio, '7.250');
  });

  test('receiver by RUT document completed from the DGI RUT service', async () => {
    const r = await emit(req({ idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { documento: '219999830019' } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.receptor.RznSocRecep.length > 0);
  });

  test('Idempotency-Key returns the original receipt, also for concurrent duplicates; another body is 409', async () => {
    const body = req({});
    const results = await Promise.all(Array.from({ length: 8 }, () => emit(body, admin, { 'idempotency-key': 'k-1' })));
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.map((r) => r.body)));
    assert.equal(new Set(results.map((r) => r.body.id)).size, 1);
    const again = await emit(body, admin, { 'idempotency-key': 'k-1' });
    assert.equal(again.body.id, results[0].body.id);
    assert.equal(again.headers['idempotent-replayed'], 'true');
    const n = await t.db.execute(sql`select count(*)::int as n from issued_cfes where idempotency_key = 'k-1'`);
    assert.equal((n.rows[0] as any).n, 1);
    const conflict = await emit(req({ detalles: [line({ cantidad: 3 })] }), admin, { 'idempotency-key': 'k-1' });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.code, 'IDEMPOTENCIA_CONFLICTO');
  });

  test('500 concurrent emissions on one serie: no gaps, no duplicates', async () => {
    const before = await t.db.execute(sql`select coalesce(max(numero), 0)::int as m from issued_cfes where company_id = ${other.id} and tipo_cfe = 101`);
    const results = await Promise.all(Array.from({ length: 500 }, () => emit(req({}, other.id))));
    assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)?.body));
    const nums = results.map((r) => r.body.numero).sort((a, b) => a - b);
    const start = (before.rows[0] as any).m + 1;
    assert.deepEqual(nums, Array.from({ length: 500 }, (_, i) => start + i));
  });

  test('firmarXml signs a client CFE with the company certificate', async () => {
    const r = await emit(req({}));
    const signed = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    const unsigned = signed.replace(/<Signature xmlns=[\s\S]*<\/Signature>/, '');
    const res = await t.call(admin, 'POST', '/api/v1/comprobante/firmarXml', { idEmpresa: company.id, xml: `<?xml version="1.0"?>\n${unsigned}` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assertValidSigned(res.body.xml);
    const bad = await t.call(admin, 'POST', '/api/v1/comprobante/firmarXml', { idEmpresa: company.id, xml: '<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck/></CFE>' });
    assert.equal(bad.status, 422);
  });
});

describe('errors', () => {
  const cases: Array<[string, Record<string, unknown>, string, number?]> = [
    ['credit note without referencias', { idDoc: { tipoCfe: 112, fechaEmision: today } }, 'REFERENCIA_REQUERIDA'],
    ['indCobPropia without complete reference', { IndCobPropia: 1, detalles: [line({ indicadorFacturacion: 6 })] }, 'COBRANZA_PROPIA_SIN_REFERENCIA'],
    ['idCliente of another company / missing', { receptor: { idCliente: 999999 } }, 'CLIENTE_RECEPTOR_NO_ENCONTRADO'],
    ['RUT not resolvable locally nor at DGI', { receptor: { documento: '214844360018' }, idDoc: { tipoCfe: 111, fechaEmision: today } }, 'RUT_RECEPTOR_NO_RESUELTO'],
    ['foreign currency without resolvable rate', { totales: { tipoMoneda: 'JPY' } }, 'TIPO_CAMBIO_NO_RESUELTO'],
    ['currency not in the catalogue', { totales: { tipoMoneda: 'XXQ' } }, 'MONEDA_NO_EXISTE'],
    ['e-Factura without RUC receiver', { idDoc: { tipoCfe: 111, fechaEmision: today } }, 'RECEPTOR_RUC_REQUERIDO'],
    ['e-Ticket above 5,000 UI without receiver', { detalles: [line({ precioUnitario: 100000 })] }, 'RECEPTOR_REQUERIDO_TOPE_UI'],
    ['IndFact not allowed', { detalles: [line({ indicadorFacturacion: 9 })] }, 'INDICADOR_FACTURACION_INVALIDO'],
    ['contingency type', { idDoc: { tipoCfe: 201, fechaEmision: today } }, 'TIPO_CFE_INVALIDO'],
    ['fechaEmision more than 60 days ahead (DGI would reject it after numbering)', { idDoc: { tipoCfe: 101, fechaEmision: new Date(Date.parse(today) + 61 * 86_400_000).toISOString().slice(0, 10) } }, 'FECHA_EMISION_FUERA_DE_RANGO'],
    ['unknown terminal', {}, 'PUNTO_EMISION_NO_ENCONTRADO', 404],
    ['emisor.ruc that is not the company RUT (BRIEF 2.2, 2.9, 3)', { emisor: { ruc: '123456789012', razonSocial: 'Cualquiera' } }, 'EMISOR_RUC_DISTINTO'],
    ['montoItem contradicting cantidad × precio (BRIEF 2.4 B-C24)', { detalles: [line({ cantidad: 2, precioUnitario: 10, montoItem: 25 })] }, 'MONTO_ITEM_INCORRECTO'],
    ['free line (IndFact 5) with a montoItem (BRIEF 2.4 B-C24)', { detalles: [line(), line({ indicadorFacturacion: 5, precioUnitario: 0, montoItem: 10 })] }, 'MONTO_ITEM_INCORRECTO'],
    ['global reference with serie and fecha (BRIEF 2.8)', { idDoc: { tipoCfe: 102, fechaEmision: today }, referencias: [{ indicadorGlobal: 1, razon: 'Varios', serie: 'A', fecha: today }] }, 'REFERENCIA_GLOBAL_CON_DATOS'],
    ['cuenta ajena without complementoFiscal (BRIEF 2.10)', { idDoc: { tipoCfe: 131, fechaEmision: today } }, 'COMPLEMENTO_FISCAL_REQUERIDO'],
    ['complementoFiscal on an ordinary e-Ticket (BRIEF 2.10)', { complementoFiscal: { tipoDocMandante: 2, pais: 'UY', documentoMandante: '211111110014', nombreMandante: 'Mandante SA' } }, 'COMPLEMENTO_FISCAL_NO_CORRESPONDE'],
    ['own collection with global discounts (BRIEF 2.1, 2.7)', { IndCobPropia: 1, detalles: [line({ indicadorFacturacion: 6 })], referencias: [{ tipoCfe: 101, serie: 'A', numero: 1 }], descuentosRecargos: [{ tipoMovimiento: 'D', tipo: 1, glosa: 'Descuento', valor: 10, indicadorFacturacion: 6 }] }, 'COBRANZA_PROPIA_DESCUENTOS'],
    ['totales.cantLinDet different from the lines (BRIEF 1, A-C126)', { totales: { tipoMoneda: 'UYU', mntNetoIVATasaBasica: '379.80', ivaTasaBasica: '22', mntIVATasaBasica: '83.56', mntTotal: '463.36', mntPagar: '463.36', cantLinDet: 5 } }, 'CANTIDAD_LINEAS_DISTINTA'],
    ['DNI of a country other than AR, BR, CL, PY (BRIEF 1)', { receptor: { documento: '30123456', tipoDocumento: 6, codPais: 'US', razonSocial: 'John Doe' } }, 'DOCUMENTO_RECEPTOR_INVALIDO'],
    ['free line (IndFact 5) with a price (BRIEF 2.4, 2.6)', { detalles: [line(), line({ indicadorFacturacion: 5, precioUnitario: 10 })] }, 'PRECIO_UNITARIO_INVALIDO'],
    ['price 0 on a billed line (BRIEF 2.4: PrecioUnitario > 0)', { detalles: [line({ precioUnitario: 0 })] }, 'PRECIO_UNITARIO_INVALIDO'],
    ['IndFact 4 (otra tasa) without totales', { detalles: [line({ indicadorFacturacion: 4 })] }, 'OTRA_TASA_SIN_TOTALES'],
    ['sent mntTotal over components that add up to less (BRIEF 2.4 A-C124)', { totales: { mntNetoIVATasaBasica: '379.80', ivaTasaBasica: '22', mntIVATasaBasica: '83.56', mntTotal: '999.99', mntPagar: '999.99' } }, 'TOTALES_DESCUADRADOS'],
    ['sent totales that do not match the lines (BRIEF 2.4 A-C117)', { totales: { mntNetoIVATasaBasica: '1', ivaTasaBasica: '22', mntIVATasaBasica: '0.22', mntTotal: '1.22', mntPagar: '1.22' } }, 'TOTALES_DESCUADRADOS'],
    ['sent base without its rate (BRIEF 2.4 A-C116)', { detalles: [line({ indicadorFacturacion: 2 })], totales: { mntNetoIvaTasaMin: '379.80', mntTotal: '379.80', mntPagar: '379.80' } }, 'TOTALES_DESCUADRADOS'],
    ['GTIN13 with a bad check digit (BRIEF 2.5)', { detalles: [line({ codigoItem: [{ tpoCod: 'GTIN13', cod: '4006381333932' }] })] }, 'CODIGO_ITEM_INVALIDO'],
  ];
  for (const [name, cfe, code, status] of cases) {
    test(name, async () => {
      const body: any = req(cfe);
      if (code === 'PUNTO_EMISION_NO_ENCONTRADO') body.codTerminal = 'NOPE';
      const before = await t.db.execute(sql`select count(*)::int as n from issued_cfes`);
      const r = await emit(body);
      assert.equal(r.body.code, code, JSON.stringify(r.body));
      assert.equal(r.status, status ?? 422);
      assert.ok(r.body.error.length > 10);
      const after = await t.db.execute(sql`select count(*)::int as n from issued_cfes`);
      assert.equal((after.rows[0] as any).n, (before.rows[0] as any).n);
    });
  }
  test('product lines are checked by the products module (variant of the company, traceability)', async () => {
    const p = await t.call(admin, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: 'TRZ-1', nombre: 'Taladro', unidadMedida: 'unid', requiereLote: true });
    assert.equal(p.status, 201, JSON.stringify(p.body));
    const v = await t.call(admin, 'POST', '/api/v1/producto/variante/crear', { idProducto: p.body.id, codigo: 'V1', nombre: 'Taladro 500 W', precioUnitario: '100' });
    assert.equal(v.status, 201, JSON.stringify(v.body));
    const missing = await emit(req({ detalles: [line({ idVariante: v.body.id })] }));
    assert.equal(missing.status, 422);
    assert.equal(missing.body.code, 'TRAZABILIDAD_REQUERIDA');
    const foreign = await emit(req({ detalles: [line({ idVariante: v.body.id })] }, other.id));
    assert.equal(foreign.body.code, 'VARIANTE_NO_ENCONTRADA');
    const plain = await emit(req({ detalles: [line({ idVariante: v.body.id, datosTrazabilidad: { id_lote: 999999 } })] }));
    assert.equal(plain.body.code, 'LOTE_INVALIDO');
  });
  test('bad input is a 400, never a 500', async () => {
    const r = await emit({ idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 'x' } } });
    assert.equal(r.status, 400);
    // The calendar check must not throw on text that already failed the format (it ran anyway: a 500).
    for (const fechaEmision of ['2026-13-01x', 'mañana', '2026-02-30']) {
      const bad = await emit(req({ idDoc: { tipoCfe: 101, fechaEmision } }));
      assert.equal(bad.status, 400, `${fechaEmision}: ${JSON.stringify(bad.body)}`);
      assert.ok(bad.body.campos.some((c: { campo: string }) => c.campo === 'cfe.idDoc.fechaEmision'));
    }
    const text = await emit(req({ detalles: [line({ nombreItem: 'A\u0001B' })] }));
    assert.equal(text.status, 400, JSON.stringify(text.body));
    assert.deepEqual(text.body.campos.map((c: { campo: string }) => c.campo), ['cfe.detalles.0.nombreItem']);
  });
  test('decimals beyond the DGI type are a 400 on the field, before any number is taken', async () => {
    const r = await emit(req({ detalles: [line(), line({ precioUnitario: '10.1234567', cantidad: '1.2345' })], totales: { mntTotal: '100.001' } }));
    assert.equal(r.status, 400, JSON.stringify(r.body));
    const byPath = Object.fromEntries(r.body.campos.map((c: { campo: string; mensaje: string }) => [c.campo, c.mensaje]));
    assert.match(byPath['cfe.detalles.1.precioUnitario'], /6 decimales/);
    assert.match(byPath['cfe.detalles.1.cantidad'], /3 decimales/);
    assert.match(byPath['cfe.totales.mntTotal'], /2 decimales/);
    // Trailing zeros are not decimals of the value (XSD fractionDigits): accepted as sent.
    const ok = await emit(req({ detalles: [line({ precioUnitario: '10.50000000', cantidad: '2.0000' })] }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });
});

describe('errors (sent totales)', () => {
  test('a broken DGI equation names the equation and the values, and numbers nothing', async () => {
    const r = await emit(req({ totales: { mntNetoIVATasaBasica: '379.80', ivaTasaBasica: '22', mntIVATasaBasica: '83.56', mntTotal: '463.36', mntPagar: '470' } }));
    assert.equal(r.status, 422);
    assert.equal(r.body.code, 'TOTALES_DESCUADRADOS');
    assert.equal(r.body.ecuacion, 'A-C130');
    assert.deepEqual(r.body.valores, { mntPagar: '470', mntTotal: '463.36', mntTotRetenido: '0', montoNF: '0', esperado: '463.36' });
    assert.match(r.body.error, /mntPagar 470/);
  });
});

describe('access', () => {
  test('another company\'s CFE is invisible; lectura cannot emit', async () => {
    const mine = await emit(req({}));
    const outsider = await createUser(t, admin, 'outsider@test.uy', [{ idEmpresa: other.id, rol: 'emisor' }]);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/${mine.body.id}`)).status, 404);
    assert.equal((await t.call(outsider.token, 'GET', `/api/v1/cfeemitido/${mine.body.id}/xml`)).status, 404);
    assert.equal((await t.call(outsider.token, 'GET', '/api/v1/cfeemitido/99999999')).status, 404);
    assert.equal((await emit(req({}), outsider.token)).status, 404);
    const reader = await createUser(t, admin, 'reader@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    assert.equal((await emit(req({}), reader.token)).status, 403);
    assert.equal((await t.call(reader.token, 'GET', `/api/v1/cfeemitido/${mine.body.id}`)).status, 200);
  });
});
