/**
 * The questionable emitir inputs of issue 28, each with its decision (recorded in the OpenAPI
 * description of the fields): refused at the door, or accepted and why. Nothing refused is numbered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { setUpIssuer } from './issued-cfe.test-setup.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

const line = (extra: Record<string, unknown> = {}) => ({ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90', ...extra });
const req = (cfe: Record<string, unknown>) => ({ idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [line()], ...cfe } });
const emit = (body: unknown) => t.call(admin, 'POST', '/api/v1/comprobante/emitir', body);
const stored = async () => ((await t.db.execute(sql`select count(*)::int as n from issued_cfes`)).rows[0] as { n: number }).n;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  company = await insertCompany(t);
  await setUpIssuer(t.db, t.call, admin, company);
});
after(async () => t.close());

describe('errors (refused at the door, nothing numbered)', () => {
  const cases: Array<[string, Record<string, unknown>, number, string, string?]> = [
    ['cantidad 0', { detalles: [line({ cantidad: 0 })] }, 400, 'VALIDACION', 'cfe.detalles.0.cantidad'],
    ['cantidad -0', { detalles: [line({ cantidad: '-0' })] }, 400, 'VALIDACION', 'cfe.detalles.0.cantidad'],
    ['cantidad "0.000"', { detalles: [line({ cantidad: '0.000' })] }, 400, 'VALIDACION', 'cfe.detalles.0.cantidad'],
    ['nombreItem of only spaces', { detalles: [line({ nombreItem: '   ' })] }, 400, 'VALIDACION', 'cfe.detalles.0.nombreItem'],
    ['tipoCambio 39.5001 (TipCambioType has 3 decimals; used as sent, so never rounded)', { totales: { tipoMoneda: 'USD', tipoCambio: 39.5001 } }, 400, 'VALIDACION', 'cfe.totales.tipoCambio'],
    ['tipoCambio 12345.6789', { totales: { tipoMoneda: 'EUR', tipoCambio: '12345.6789' } }, 400, 'VALIDACION', 'cfe.totales.tipoCambio'],
    ['codigoPostal that is not DGI\'s integer CP', { receptor: { documento: '13353214', tipoDocumento: 3, razonSocial: 'Juan', codigoPostal: 'CP 11200' } }, 400, 'VALIDACION', 'cfe.receptor.codigoPostal'],
    ['receptor.codPais outside DGI\'s CodPaisType table', { receptor: { documento: 'X123', tipoDocumento: 5, codPais: 'ZZ', razonSocial: 'John' } }, 400, 'VALIDACION', 'cfe.receptor.codPais'],
    ['codigoItem.cod longer than DGI\'s CodItemType (it failed the XSD after numbering)', { detalles: [line({ codigoItem: [{ tpoCod: 'INT1', cod: 'x'.repeat(36) }] })] }, 400, 'VALIDACION', 'cfe.detalles.0.codigoItem.0.cod'],
    ['an export clause (clauVenta) on an e-Ticket: its IdDoc has no ClauVenta', { idDoc: { tipoCfe: 101, fechaEmision: today, clauVenta: 'FOB' } }, 422, 'CAMPO_NO_CORRESPONDE'],
    ['modVenta outside DGI\'s ModVentaType', { idDoc: { tipoCfe: 101, fechaEmision: today, modVenta: 5 } }, 400, 'VALIDACION', 'cfe.idDoc.modVenta'],
    ['a negative quantity larger than the rest: the totals would be below 0 (MontoType)', { detalles: [line({ cantidad: 1 }), line({ cantidad: -3 })] }, 422, 'TOTALES_INVALIDOS'],
    ['sent totals below 0 (MontoType)', { detalles: [line({ cantidad: 1 }), line({ cantidad: -3 })], totales: { mntNetoIVATasaBasica: '-379.80', ivaTasaBasica: '22', mntIVATasaBasica: '-83.56', mntTotal: '-463.36', mntPagar: '-463.36' } }, 422, 'TOTALES_DESCUADRADOS'],
    ['client line numbers 5, 9 (DGI numbers NroLinDet 1..n)', { detalles: [line({ numeroLineaDetalle: 5 }), line({ numeroLineaDetalle: 9 })] }, 422, 'LINEA_NUMERO_INVALIDO'],
    ['mntBruto 2 (IMEBA included) on an e-Ticket without totales', { idDoc: { tipoCfe: 101, fechaEmision: today, mntBruto: 2 } }, 422, 'MONTO_BRUTO_INVALIDO'],
    ['mntBruto 3 with a VAT indicator (BRIEF 2.6)', { idDoc: { tipoCfe: 101, fechaEmision: today, mntBruto: 3 } }, 422, 'INDICADOR_FACTURACION_INVALIDO'],
    ['a receiver document type without the document (it would be dropped)', { receptor: { razonSocial: 'Juan', tipoDocumento: 3 } }, 422, 'DOCUMENTO_RECEPTOR_INVALIDO'],
    ['an e-Factura receiver with only a name (BRIEF 1: RUT required)', { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { razonSocial: 'Cliente SA' } }, 422, 'RECEPTOR_RUC_REQUERIDO'],
    ['an e-Ticket above 5,000 UI with only a receiver name (BRIEF 1: document required)', { receptor: { razonSocial: 'Juan' }, detalles: [line({ precioUnitario: 100000 })] }, 422, 'RECEPTOR_REQUERIDO_TOPE_UI'],
    ['mntBruto on an e-Remito', { idDoc: { tipoCfe: 181, fechaEmision: today, mntBruto: 1 }, receptor: { documento: '214844360018', razonSocial: 'Cliente SA' }, detalles: [{ nombreItem: 'Caja', cantidad: 1 }] }, 422, 'MONTO_BRUTO_INVALIDO'],
  ];
  for (const [name, cfe, status, code, campo] of cases) {
    test(name, async () => {
      const before = await stored();
      const r = await emit(req(cfe));
      assert.deepEqual([r.status, r.body.code], [status, code], JSON.stringify(r.body));
      if (campo) assert.deepEqual(r.body.campos.map((c: { campo: string }) => c.campo), [campo]);
      assert.equal(await stored(), before);
    });
  }

  test('a sales order with a negative or zero quantity is refused', async () => {
    for (const cantidad of [-1, 0, '-0.5']) {
      const r = await t.call(admin, 'POST', '/api/v1/ordenventa/crear', { idEmpresa: company.id, detalles: [{ nombreItem: 'Yerba', cantidad, precioUnitario: 10 }] });
      assert.deepEqual([r.status, r.body.campos?.[0]?.campo], [400, 'detalles.0.cantidad'], JSON.stringify(r.body));
    }
  });
});

describe('happy path (accepted, and why)', () => {
  test('a negative quantity takes back an item of the same CFE (BRIEF 2.4)', async () => {
    const r = await emit(req({ detalles: [line({ cantidad: 3 }), line({ cantidad: -1 })] }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.totales.MntNetoIVATasaBasica, '379.80');
  });

  test('line numbers that are the lines\' positions; names with outer spaces are trimmed', async () => {
    const r = await emit(req({ detalles: [line({ numeroLineaDetalle: 1, nombreItem: '  Yerba  ' }), line({ numeroLineaDetalle: 2 })] }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });

  test('an e-Ticket receiver with only a name is issued with it (BRIEF 1: below 5,000 UI the e-Ticket receiver is optional, the name alone allowed)', async () => {
    const r = await emit(req({ receptor: { razonSocial: 'Juan Pérez', direccion: 'Rivera 1234', ciudad: 'Montevideo', pais: 'Uruguay' } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const row = await t.db.execute(sql`select receptor_nombre from issued_cfes where id = ${r.body.id}`);
    assert.equal((row.rows[0] as { receptor_nombre: string }).receptor_nombre, 'Juan Pérez');
    const xml = (await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/${r.body.id}/xml`, headers: { authorization: `Bearer ${admin}` } })).body;
    assert.match(xml.replace(/<(\/?)\w+:/g, '<$1'), /<Receptor><RznSocRecep>Juan Pérez<\/RznSocRecep><DirRecep>Rivera 1234<\/DirRecep><CiudadRecep>Montevideo<\/CiudadRecep><PaisRecep>Uruguay<\/PaisRecep><\/Receptor>/);
  });

  test('mntBruto 2 with sent totales (the client computes the IMEBA-inclusive totals)', async () => {
    const r = await emit(req({ idDoc: { tipoCfe: 101, fechaEmision: today, mntBruto: 2 }, totales: { mntNetoIVATasaBasica: '379.80', ivaTasaBasica: '22', mntIVATasaBasica: '83.56', mntTotal: '463.36', mntPagar: '463.36' } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
  });
});
