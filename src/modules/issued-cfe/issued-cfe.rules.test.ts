import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { createSigningContext, getCfeType, signCfe } from '../emission/index.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { AppError } from '../../lib/errors.js';
import { draftCfe } from './issued-cfe.assemble.js';
import { decimalDigits, issueCfeBody, type CfeBody } from './issued-cfe.schemas.js';
import * as rules from './issued-cfe.rules.js';

const issuer: rules.IssuerData = {
  rut: '219999830019', razonSocial: 'Empresa Demo S.A.', domicilioFiscal: 'Av. Italia 1', ciudad: 'Montevideo', departamento: 'Montevideo', telefono: '29000000',
  email: 'empresa@demo.uy', branch: { nombre: 'Sucursal Centro', direccion: '18 de Julio 1000', telefono: null, email: 'centro@demo.uy' }, codigoDgiSucursal: 7,
};

function body(cfe: Record<string, unknown>): CfeBody {
  return issueCfeBody.parse({ idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-03-10' }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'x', cantidad: 1, precioUnitario: 100 }], ...cfe } }).cfe;
}

const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    return err.code;
  }
  return 'OK';
};

describe('happy path', () => {
  it('fills the issuer from company and branch when emisor is omitted (spec 2.2)', () => {
    const e = rules.buildEmisor(undefined, issuer);
    assert.equal(e.RUCEmisor, '219999830019');
    assert.equal(e.CdgDGISucur, 7);
    assert.equal(e.DomFiscal, '18 de Julio 1000'); // branch first
    assert.deepEqual(e.Telefono, ['29000000']); // company fallback
    assert.equal(e.CorreoEmisor, 'centro@demo.uy');
  });
  it('fills the issuer when emisor has no ruc, keeps a sent one with ruc', () => {
    assert.equal(rules.buildEmisor({ razonSocial: 'Otro' }, issuer).RznSoc, 'Empresa Demo S.A.');
    assert.equal(rules.buildEmisor({ ruc: '214844360018', razonSocial: 'Otro' }, issuer).RznSoc, 'Otro');
  });
  it('reproduces DGI worked example of BRIEF 2.4 when totales is omitted', () => {
    const cfe = body({
      idDoc: { tipoCfe: 101, fechaEmision: '2026-03-10', mntBruto: 1 },
      detalles: [
        { indicadorFacturacion: 3, nombreItem: 'A', cantidad: 40, precioUnitario: 4200 },
        { indicadorFacturacion: 2, nombreItem: 'B', cantidad: 18, precioUnitario: 22 },
        { indicadorFacturacion: 1, nombreItem: 'C', cantidad: 12, precioUnitario: 35 },
      ],
    });
    const d = draftCfe({ info: getCfeType(101), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
    assert.equal(d.Totales.MntNoGrv, '420.00');
    assert.equal(d.Totales.MntNetoIvaTasaMin, '360.00');
    assert.equal(d.Totales.MntNetoIVATasaBasica, '137704.92');
    assert.equal(d.Totales.MntIVATasaMin, '36.00');
    assert.equal(d.Totales.MntIVATasaBasica, '30295.08');
    assert.equal(d.Totales.MntTotal, '168816.00');
    assert.equal(d.Totales.MntPagar, '168816.00');
  });
  it('uses sent totales as sent, not recalculated (spec 2.3 rule 1)', () => {
    const cfe = body({ totales: { tipoMoneda: 'UYU', mntNoGrv: 1, mntTotal: '999.99', mntPagar: '999.99' } });
    const d = draftCfe({ info: getCfeType(101), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
    assert.equal(d.Totales.MntTotal, '999.99');
    assert.equal(d.Totales.MntNoGrv, '1');
    assert.equal(d.Totales.CantLinDet, 1);
  });
  it('computes totals when totales is an empty object or carries only the currency', () => {
    assert.equal(rules.hasSentAmounts({}), false);
    assert.equal(rules.hasSentAmounts({ tipoMoneda: 'USD' }), false);
    assert.equal(rules.hasSentAmounts({ mntTotal: '1' }), true);
  });
  it('builds XSD-valid XML for a manual line without idVariante', () => {
    const cfe = body({ detalles: [{ indicadorFacturacion: 3, nombreItem: 'Servicio', descripcionItem: 'manual', cantidad: '1.5', precioUnitario: '100.10', unidadMedida: 'h' }] });
    const d = draftCfe({ info: getCfeType(101), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
    const cert = issueTestCertificate(createTestCa(), { rut: '219999830019', name: 'Empresa Demo SA' });
    d.IdDoc.Nro = 1;
    d.CAEData = { CAE_ID: '90260000011', DNro: 1, HNro: 100, FecVenc: '2027-12-31' };
    const signed = signCfe(d, createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem }));
    assert.deepEqual(validateXml('CFE', signed.xml), { ok: true });
  });
});

describe('errors', () => {
  it('credit note without referencias', () => assert.equal(code(() => rules.checkReferences(getCfeType(112), body({}))), 'REFERENCIA_REQUERIDA'));
  it('incomplete reference', () => assert.equal(code(() => rules.checkReferences(getCfeType(112), body({ referencias: [{ tipoCfe: 111, serie: 'A' }] }))), 'REFERENCIA_INCOMPLETA'));
  it('global reference needs razon', () => assert.equal(code(() => rules.checkReferences(getCfeType(112), body({ referencias: [{ indicadorGlobal: 1 }] }))), 'REFERENCIA_INCOMPLETA'));
  it('complete references pass', () => {
    assert.equal(code(() => rules.checkReferences(getCfeType(112), body({ referencias: [{ tipoCfe: 111, serie: 'A', numero: 3 }] }))), 'OK');
    assert.equal(code(() => rules.checkReferences(getCfeType(112), body({ referencias: [{ indicadorGlobal: 1, razon: 'Varios' }] }))), 'OK');
  });
  it('indCobPropia = 1 (either casing) without reference', () => {
    assert.equal(code(() => rules.checkReferences(getCfeType(101), body({ indCobPropia: 1 }))), 'COBRANZA_PROPIA_SIN_REFERENCIA');
    assert.equal(code(() => rules.checkReferences(getCfeType(101), body({ IndCobPropia: 1 }))), 'COBRANZA_PROPIA_SIN_REFERENCIA');
  });
  it('indCobPropia = 1 allows only IndFact 6/7', () => assert.equal(code(() => rules.checkLines(getCfeType(101), body({ IndCobPropia: 1 }))), 'COBRANZA_PROPIA_INDICADOR'));
  it('IndFact not allowed for the type', () => assert.equal(code(() => rules.checkLines(getCfeType(121), body({}))), 'INDICADOR_FACTURACION_INVALIDO'));
  it('line limit 200 for e-Factura', () => {
    const detalles = Array.from({ length: 201 }, () => ({ indicadorFacturacion: 3, nombreItem: 'x', cantidad: 1, precioUnitario: 1 }));
    assert.equal(code(() => rules.checkLines(getCfeType(111), body({ detalles }))), 'LINEAS_FUERA_DE_RANGO');
    assert.equal(code(() => rules.checkLines(getCfeType(101), body({ detalles }))), 'OK');
  });
  it('e-Factura needs a receiver with RUC', () => {
    const t = { CantLinDet: 1, MntTotal: '1' };
    assert.equal(code(() => rules.checkReceptor(getCfeType(111), undefined, t, new Decimal(1e9))), 'RECEPTOR_RUC_REQUERIDO');
    assert.equal(code(() => rules.checkReceptor(getCfeType(111), { TipoDocRecep: 3, DocRecep: '13353214', RznSocRecep: 'x' }, t, new Decimal(1e9))), 'RECEPTOR_RUC_REQUERIDO');
    assert.equal(code(() => rules.checkReceptor(getCfeType(111), { TipoDocRecep: 2, DocRecep: '214844360018', RznSocRecep: 'x' }, t, new Decimal(1e9))), 'OK');
  });
  it('e-Ticket above 5,000 UI needs a receiver, in pesos for foreign currency', () => {
    const limit = new Decimal(5000).times('6.2');
    assert.equal(code(() => rules.checkReceptor(getCfeType(101), undefined, { CantLinDet: 1, MntNoGrv: '31000.01' }, limit)), 'RECEPTOR_REQUERIDO_TOPE_UI');
    assert.equal(code(() => rules.checkReceptor(getCfeType(101), undefined, { CantLinDet: 1, MntNoGrv: '31000' }, limit)), 'OK');
    assert.equal(code(() => rules.checkReceptor(getCfeType(101), undefined, { CantLinDet: 1, TpoMoneda: 'USD', TpoCambio: '40', MntNoGrv: '800' }, limit)), 'RECEPTOR_REQUERIDO_TOPE_UI');
    assert.equal(code(() => rules.checkReceptor(getCfeType(101), { TipoDocRecep: 3, DocRecep: '13353214' }, { CantLinDet: 1, MntNoGrv: '99999' }, limit)), 'OK');
  });
  it('contingency and unknown types are refused', () => {
    assert.equal(code(() => rules.cfeTypeOf(201)), 'TIPO_CFE_INVALIDO');
    assert.equal(code(() => rules.cfeTypeOf(999)), 'TIPO_CFE_INVALIDO');
  });
  it('invalid receiver documents', () => {
    assert.equal(code(() => rules.checkDocument(2, 'UY', '214844360019')), 'DOCUMENTO_RECEPTOR_INVALIDO');
    assert.equal(code(() => rules.checkDocument(3, 'AR', '13353214')), 'DOCUMENTO_RECEPTOR_INVALIDO');
  });
});

describe('fechaEmision (BRIEF 2.1: 2011-10-01 .. DGI date + 60 days)', () => {
  it('accepts the bounds and refuses one day beyond them', () => {
    assert.equal(code(() => rules.checkFechaEmision('2011-10-01', '2026-11-21')), 'OK');
    assert.equal(code(() => rules.checkFechaEmision('2011-09-30', '2026-11-21')), 'FECHA_EMISION_FUERA_DE_RANGO');
    assert.equal(code(() => rules.checkFechaEmision('2027-01-20', '2026-11-21')), 'OK');
    assert.equal(code(() => rules.checkFechaEmision('2027-01-21', '2026-11-21')), 'FECHA_EMISION_FUERA_DE_RANGO');
    assert.equal(code(() => rules.checkFechaEmision('2050-12-31', '2050-12-01')), 'OK');
    assert.equal(code(() => rules.checkFechaEmision('2051-01-01', '2050-12-01')), 'FECHA_EMISION_FUERA_DE_RANGO');
  });

  it('a date that is not in the calendar is a validation error of the field', () => {
    const r = issueCfeBody.safeParse({ idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2026-02-30' }, detalles: [{ nombreItem: 'x', cantidad: 1 }] } });
    assert.equal(r.success, false);
    assert.deepEqual(r.error?.issues.map((i) => i.path.join('.')), ['cfe.idDoc.fechaEmision']);
    assert.equal(issueCfeBody.safeParse({ idEmpresa: 1, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: '2028-02-29' }, detalles: [{ nombreItem: 'x', cantidad: 1 }] } }).success, true);
  });
});

describe('decimalDigits: the XSD fractionDigits/totalDigits of a decimal string', () => {
  it('counts the value, not the lexical form', () => {
    assert.deepEqual(decimalDigits('1.50'), { fraction: 1, total: 2 });
    assert.deepEqual(decimalDigits('0.05'), { fraction: 2, total: 1 });
    assert.deepEqual(decimalDigits('-010.0050'), { fraction: 3, total: 5 });
    assert.deepEqual(decimalDigits('100'), { fraction: 0, total: 3 });
    assert.deepEqual(decimalDigits('0'), { fraction: 0, total: 0 });
  });
});
