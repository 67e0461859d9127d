import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import { createSigningContext, getCfeType, signCfe } from '../emission/index.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { AppError } from '../../lib/errors.js';
import { draftCfe } from './issued-cfe.assemble.js';
import type { CustomerRecord, IssuedCfePorts } from './issued-cfe.ports.js';
import { resolveReceptor } from './issued-cfe.receptor.js';
import { decimalDigits, issueCfeBody, type CfeBody } from './issued-cfe.schemas.js';
import * as rules from './issued-cfe.rules.js';
import * as references from './issued-cfe.references.js';

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
    assert.equal(rules.buildEmisor({ ruc: '219999830019', razonSocial: 'Otro' }, issuer).RznSoc, 'Otro');
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
    const cfe = body({ totales: { tipoMoneda: 'UYU', mntNetoIVATasaBasica: 100, ivaTasaBasica: 22, mntIVATasaBasica: 22, mntTotal: '122', mntPagar: '122' } });
    const d = draftCfe({ info: getCfeType(101), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
    assert.equal(d.Totales.MntTotal, '122');
    assert.equal(d.Totales.IVATasaBasica, '22');
    assert.equal(d.Totales.MntIVATasaMin, undefined);
    assert.equal(d.Totales.CantLinDet, 1);
  });
  it('checks sent totales against DGI equations before using them (BRIEF 2.4): a broken one is TOTALES_DESCUADRADOS', () => {
    const cfe = body({ totales: { tipoMoneda: 'UYU', mntNoGrv: 1, mntTotal: '999.99', mntPagar: '999.99' } });
    const draft = () => draftCfe({ info: getCfeType(101), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
    assert.equal(code(draft), 'TOTALES_DESCUADRADOS');
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
  it('credit note without referencias', () => assert.equal(code(() => references.checkReferences(getCfeType(112), body({}))), 'REFERENCIA_REQUERIDA'));
  it('incomplete reference', () => assert.equal(code(() => references.checkReferences(getCfeType(112), body({ referencias: [{ tipoCfe: 111, serie: 'A' }] }))), 'REFERENCIA_INCOMPLETA'));
  it('global reference needs razon', () => assert.equal(code(() => references.checkReferences(getCfeType(112), body({ referencias: [{ indicadorGlobal: 1 }] }))), 'REFERENCIA_INCOMPLETA'));
  it('complete references pass', () => {
    assert.equal(code(() => references.checkReferences(getCfeType(112), body({ referencias: [{ tipoCfe: 111, serie: 'A', numero: 3 }] }))), 'OK');
    assert.equal(code(() => references.checkReferences(getCfeType(112), body({ referencias: [{ indicadorGlobal: 1, razon: 'Varios' }] }))), 'OK');
  });
  it('indCobPropia = 1 (either casing) without reference', () => {
    assert.equal(code(() => references.checkReferences(getCfeType(101), body({ indCobPropia: 1 }))), 'COBRANZA_PROPIA_SIN_REFERENCIA');
    assert.equal(code(() => references.checkReferences(getCfeType(101), body({ IndCobPropia: 1 }))), 'COBRANZA_PROPIA_SIN_REFERENCIA');
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

describe('references checked against our own CFEs (BRIEF 2.8)', () => {
  const base = { moneda: 'UYU', tipoCambio: null, mntPagar: '1220.00' };
  const own: references.OwnReferencedCfe[] = [
    { tipoCfe: 111, serie: 'A', numero: 3, fechaEmision: '2026-03-01', rejectedByDgi: false, ...base },
    { tipoCfe: 111, serie: 'A', numero: 4, fechaEmision: '2026-03-02', rejectedByDgi: true, ...base },
    { tipoCfe: 121, serie: 'A', numero: 5, fechaEmision: '2026-03-03', rejectedByDgi: false, moneda: 'USD', tipoCambio: '39.500', mntPagar: '100.00' },
  ];
  const note = (refs: Array<Record<string, unknown>>) => body({ idDoc: { tipoCfe: 112, fechaEmision: '2026-03-10' }, referencias: refs });
  it('keys only complete, non-global references', () => {
    assert.deepEqual(references.referencedKeys(note([{ tipoCfe: 111, serie: 'A', numero: 3 }, { indicadorGlobal: 1, razon: 'Varios' }])), [{ tipoCfe: 111, serie: 'A', numero: 3 }]);
  });
  it('accepts the referenced date, no date, and receipts that are not ours', () => {
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 3, fecha: '2026-03-01' }]), own)), 'OK');
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 3 }]), own)), 'OK');
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 9, fecha: '2020-01-01' }]), own)), 'OK');
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'B', numero: 3, fecha: '2020-01-01' }]), own)), 'OK');
  });
  it('amount, currency and rate of the Formato v25 fields: checked against our own CFE (BRIEF 2.8)', () => {
    const usd = (r: Record<string, unknown>) => note([{ tipoCfe: 121, serie: 'A', numero: 5, ...r }]);
    assert.equal(code(() => references.checkReferencedCfes(usd({ monto: '100.00', tipoMoneda: 'USD', tipoCambio: '39.5' }), own)), 'OK');
    assert.equal(code(() => references.checkReferencedCfes(usd({ monto: '100.01' }), own)), 'REFERENCIA_MONTO_EXCEDE');
    assert.equal(code(() => references.checkReferencedCfes(usd({ tipoMoneda: 'UYU' }), own)), 'REFERENCIA_MONEDA_DISTINTA');
    assert.equal(code(() => references.checkReferencedCfes(usd({ tipoMoneda: 'USD', tipoCambio: '40' }), own)), 'REFERENCIA_MONEDA_DISTINTA');
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 3, monto: '1220.00', tipoMoneda: 'UYU' }]), own)), 'OK');
  });
  it('a foreign-currency reference needs its rate; a global one carries none of the v25 fields', () => {
    assert.equal(code(() => references.checkReferences(getCfeType(112), note([{ tipoCfe: 111, serie: 'A', numero: 9, tipoMoneda: 'USD' }]))), 'REFERENCIA_TIPO_CAMBIO_REQUERIDO');
    assert.equal(code(() => references.checkReferences(getCfeType(112), note([{ tipoCfe: 111, serie: 'A', numero: 9, tipoMoneda: 'USD', tipoCambio: '39.5' }]))), 'OK');
    assert.equal(code(() => references.checkReferences(getCfeType(112), note([{ indicadorGlobal: 1, razon: 'Varios', monto: '10' }]))), 'REFERENCIA_GLOBAL_CON_DATOS');
  });
  it('refuses another date and a CFE that DGI rejected', () => {
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 3, fecha: '2026-03-02' }]), own)), 'REFERENCIA_FECHA_DISTINTA');
    assert.equal(code(() => references.checkReferencedCfes(note([{ tipoCfe: 111, serie: 'A', numero: 4, fecha: '2026-03-02' }]), own)), 'REFERENCIA_RECHAZADA_DGI');
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

describe('QA round: issuer, lines, references, Compl_Fiscal, documents', () => {
  const draft = (cfe: CfeBody, tipo = 101) => draftCfe({ info: getCfeType(tipo), cfe, emisor: rules.buildEmisor(undefined, issuer), currency: { TpoMoneda: 'UYU' }, TmstFirma: '2026-03-10T10:00:00-03:00' });
  const mandante = { tipoDocMandante: 2, pais: 'UY', documentoMandante: '211111110014', nombreMandante: 'Mandante SA' };

  it('a sent emisor.ruc other than the company RUT is refused (BRIEF 2.2, 2.9, 3)', () => {
    assert.equal(code(() => rules.buildEmisor({ ruc: '123456789012', razonSocial: 'Cualquiera' }, issuer)), 'EMISOR_RUC_DISTINTO');
    assert.equal(code(() => rules.buildEmisor({ ruc: issuer.rut }, issuer)), 'OK');
  });

  it('montoItem must be cantidad × precio − descuento + recargo after rounding (BRIEF 2.4 B-C24)', () => {
    const lines = (d: Record<string, unknown>) => rules.checkLines(getCfeType(101), body({ detalles: [{ indicadorFacturacion: 3, nombreItem: 'x', ...d }] }));
    assert.equal(code(() => lines({ cantidad: 2, precioUnitario: 10, montoItem: 25 })), 'MONTO_ITEM_INCORRECTO');
    assert.equal(code(() => lines({ cantidad: 2, precioUnitario: 10, montoItem: 20 })), 'OK');
    assert.equal(code(() => lines({ cantidad: 3, precioUnitario: '0.333333', montoItem: '1.00' })), 'OK'); // 0.999999 → 1.00
    assert.equal(code(() => lines({ cantidad: 2, precioUnitario: 10, descuentoMonto: 3, recargoMnt: 1, montoItem: 18 })), 'OK');
    assert.equal(code(() => lines({ cantidad: 2, precioUnitario: 10, descuentoPct: 10, montoItem: 18 })), 'OK');
    assert.equal(code(() => lines({ cantidad: 2, precioUnitario: 10, descuentoPct: 10, montoItem: 20 })), 'MONTO_ITEM_INCORRECTO');
    assert.equal(code(() => lines({ indicadorFacturacion: 5, cantidad: 2, precioUnitario: 0, montoItem: 0 })), 'OK');
    assert.equal(code(() => lines({ indicadorFacturacion: 5, cantidad: 2, montoItem: 5 })), 'MONTO_ITEM_INCORRECTO');
    // e-Resguardo lines carry no price nor MontoItem.
    const resg = body({ idDoc: { tipoCfe: 182, fechaEmision: '2026-03-10' }, detalles: [{ indicadorFacturacion: 9, montoItem: 99, retencPercep: [{ codRet: '2183165', valRetPerc: 10 }] }] });
    assert.equal(code(() => rules.checkLines(getCfeType(182), resg)), 'OK');
  });

  it('PrecioUnitario: 0 only with IndFact 5, > 0 otherwise, ≥ 0 with IndFact 8 (BRIEF 2.4, 2.6)', () => {
    const lines = (tipo: number, d: Record<string, unknown>) => rules.checkLines(getCfeType(tipo), body({ idDoc: { tipoCfe: tipo, fechaEmision: '2026-03-10' }, detalles: [{ nombreItem: 'x', cantidad: 1, ...d }] }));
    assert.equal(code(() => lines(101, { indicadorFacturacion: 5, precioUnitario: 10 })), 'PRECIO_UNITARIO_INVALIDO');
    assert.equal(code(() => lines(101, { indicadorFacturacion: 5, precioUnitario: 0 })), 'OK');
    assert.equal(code(() => lines(101, { indicadorFacturacion: 3, precioUnitario: 0 })), 'PRECIO_UNITARIO_INVALIDO');
    assert.equal(code(() => lines(101, { indicadorFacturacion: 3, precioUnitario: -1 })), 'PRECIO_UNITARIO_INVALIDO');
    assert.equal(code(() => lines(124, { indicadorFacturacion: 8, precioUnitario: 0 })), 'OK');
    assert.equal(code(() => lines(124, { precioUnitario: 0 })), 'PRECIO_UNITARIO_INVALIDO');
    assert.equal(code(() => lines(181, { precioUnitario: 0 })), 'OK'); // e-Remito items have no price
  });

  it('GTIN codes need their length and check digit (BRIEF 2.5)', () => {
    assert.equal(rules.gtinCheckDigit('400638133393'), 1); // GS1 example 4006381333931
    assert.equal(rules.gtinCheckDigit('7351353'), 7); // GTIN-8 73513537
    const lines = (tpoCod: string, cod: string) => rules.checkLines(getCfeType(101), body({ detalles: [{ indicadorFacturacion: 3, nombreItem: 'x', cantidad: 1, precioUnitario: 1, codigoItem: [{ tpoCod, cod }] }] }));
    assert.equal(code(() => lines('GTIN13', '4006381333931')), 'OK');
    assert.equal(code(() => lines('GTIN13', '4006381333932')), 'CODIGO_ITEM_INVALIDO');
    assert.equal(code(() => lines('GTIN13', '400638133393')), 'CODIGO_ITEM_INVALIDO');
    assert.equal(code(() => lines('GTIN8', '73513537')), 'OK');
    assert.equal(code(() => lines('GTIN14', '1400638133393A')), 'CODIGO_ITEM_INVALIDO');
    assert.equal(code(() => lines('INT1', 'ABC-1')), 'OK');
  });

  it('a global reference carries no tipoCfe, serie, numero nor fecha (BRIEF 2.8)', () => {
    const refs = (r: Record<string, unknown>) => references.checkReferences(getCfeType(112), body({ referencias: [{ indicadorGlobal: 1, razon: 'Varios', ...r }] }));
    assert.equal(code(() => refs({ serie: 'A' })), 'REFERENCIA_GLOBAL_CON_DATOS');
    assert.equal(code(() => refs({ fecha: '2026-03-01' })), 'REFERENCIA_GLOBAL_CON_DATOS');
    assert.equal(code(() => refs({ tipoCfe: 111 })), 'REFERENCIA_GLOBAL_CON_DATOS');
    assert.equal(code(() => refs({})), 'OK');
    // A fecha on an identified reference is fine.
    assert.equal(code(() => references.checkReferences(getCfeType(112), body({ referencias: [{ tipoCfe: 111, serie: 'A', numero: 3, fecha: '2026-03-01' }] }))), 'OK');
  });

  it('own collection forbids DscRcgGlobal (BRIEF 2.1, 2.7)', () => {
    const cfe = (drg: boolean) => body({
      IndCobPropia: 1, detalles: [{ indicadorFacturacion: 6, nombreItem: 'x', cantidad: 1, precioUnitario: 100 }], referencias: [{ tipoCfe: 101, serie: 'A', numero: 1 }],
      ...(drg ? { descuentosRecargos: [{ tipoMovimiento: 'D', tipo: 1, glosa: 'Descuento', valor: 10, indicadorFacturacion: 6 }] } : {}),
    });
    assert.equal(code(() => rules.checkLines(getCfeType(101), cfe(true))), 'COBRANZA_PROPIA_DESCUENTOS');
    assert.equal(code(() => rules.checkLines(getCfeType(101), cfe(false))), 'OK');
  });

  it('CantLinDet is the number of items: a different sent value is refused, the XML always carries the count (BRIEF 1, A-C126)', () => {
    const totales = { tipoMoneda: 'UYU', mntNoGrv: 100, mntTotal: 100, mntPagar: 100 };
    assert.equal(code(() => rules.checkLines(getCfeType(101), body({ totales: { ...totales, cantLinDet: 5 } }))), 'CANTIDAD_LINEAS_DISTINTA');
    assert.equal(code(() => rules.checkLines(getCfeType(101), body({ totales: { ...totales, cantLinDet: 1 } }))), 'OK');
    assert.equal(rules.sentTotales(body({ totales: { ...totales, cantLinDet: 5 } }).totales!, { TpoMoneda: 'UYU' }, 1).CantLinDet, 1);
  });

  it('IndFact 4 (otra tasa) needs sent totales: a Spanish 422, and sent totales are used (BRIEF 2.4, spec 2.3 rule 1)', () => {
    const detalles = [{ indicadorFacturacion: 4, nombreItem: 'x', cantidad: 1, precioUnitario: 100 }];
    assert.equal(code(() => rules.checkLines(getCfeType(101), body({ detalles }))), 'OTRA_TASA_SIN_TOTALES');
    const sent = body({ detalles, totales: { mntNetoIVAOtra: 100, mntIVAOtra: 5, mntTotal: 105, mntPagar: 105 } });
    assert.equal(code(() => rules.checkLines(getCfeType(101), sent)), 'OK');
    assert.equal(draft(sent).Totales.MntIVAOtra, '5');
  });

  it('Compl_Fiscal: required on cuenta ajena unless SecProf 2, refused elsewhere (BRIEF 2.10)', () => {
    assert.equal(code(() => draft(body({ idDoc: { tipoCfe: 131, fechaEmision: '2026-03-10' } }), 131)), 'COMPLEMENTO_FISCAL_REQUERIDO');
    assert.equal(code(() => draft(body({ idDoc: { tipoCfe: 131, fechaEmision: '2026-03-10', secProf: 2 } }), 131)), 'OK');
    assert.equal(draft(body({ idDoc: { tipoCfe: 131, fechaEmision: '2026-03-10' }, complementoFiscal: mandante }), 131).Compl_Fiscal?.RUCEmisor, issuer.rut);
    assert.equal(code(() => draft(body({ complementoFiscal: mandante }))), 'COMPLEMENTO_FISCAL_NO_CORRESPONDE');
    const boleta = (ind: number) => rules.checkComplementoFiscal(getCfeType(151), body({ idDoc: { tipoCfe: 151, fechaEmision: '2026-03-10', indCompraMEReventa: ind }, complementoFiscal: mandante }));
    assert.equal(code(() => boleta(2)), 'OK');
    assert.equal(code(() => boleta(1)), 'COMPLEMENTO_FISCAL_NO_CORRESPONDE');
  });

  it('DNI (tipo 6) only from AR, BR, CL or PY (BRIEF 1)', () => {
    assert.equal(code(() => rules.checkDocument(6, 'US', '30123456')), 'DOCUMENTO_RECEPTOR_INVALIDO');
    assert.equal(code(() => rules.checkDocument(6, '99', '30123456')), 'DOCUMENTO_RECEPTOR_INVALIDO');
    for (const pais of ['AR', 'BR', 'CL', 'PY']) assert.equal(code(() => rules.checkDocument(6, pais, '30123456')), 'OK');
    assert.equal(code(() => rules.checkDocument(5, 'US', 'X1234567')), 'OK');
  });

  it('truncation counts characters (code points), never splitting an emoji (XSD maxLength)', () => {
    assert.equal(rules.cutChars('Sucursal Centro 123🏪 Norte', 20), 'Sucursal Centro 123🏪');
    assert.equal(rules.cutChars('abc', 20), 'abc');
    assert.equal(rules.cutChars(null, 20), undefined);
    const e = rules.buildEmisor(undefined, { ...issuer, branch: { ...issuer.branch, nombre: 'Sucursal Centro 123🏪 Norte' } });
    assert.equal(e.EmiSucursal, 'Sucursal Centro 123🏪');
    assert.ok(!/[\uD800-\uDBFF]$/.test(e.EmiSucursal!), 'no lone high surrogate at the end');
  });

  it('the receiver from a customer is cut by characters too', async () => {
    const customer: CustomerRecord = { id: 1, companyId: 1, tipoDocumento: 2, codPais: 'UY', documento: '214844360018', razonSocial: `${'x'.repeat(149)}🏪 SA`, ciudad: `${'c'.repeat(29)}🏪🏪` };
    const ports = { customerById: async () => customer } as unknown as IssuedCfePorts;
    const { receptor } = await resolveReceptor(ports, 1, { idCliente: 1 });
    assert.equal(receptor?.RznSocRecep, `${'x'.repeat(149)}🏪`);
    assert.equal(receptor?.CiudadRecep, `${'c'.repeat(29)}🏪`);
  });
});
