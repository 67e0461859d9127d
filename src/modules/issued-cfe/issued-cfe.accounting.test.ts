import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Decimal } from 'decimal.js';
import { csvField, DEFAULT_ACCOUNT_CODES, journalLines, receiptCsv } from './issued-cfe.accounting.js';
import type { IssuedCfeSummary } from './issued-cfe.search.js';

const sum = (ls: ReturnType<typeof journalLines>, k: 'debe' | 'haber' | 'debeMN' | 'haberMN') => ls.reduce((a, l) => a.plus(l[k]), new Decimal(0)).toFixed(2);

test('e-Factura: receivable debit = net per rate + VAT per rate credits', () => {
  const ls = journalLines({ tipoCfe: 111, moneda: 'UYU', tipoCambio: null, totales: { MntNetoIVATasaBasica: '100.00', MntIVATasaBasica: '22.00', MntNetoIvaTasaMin: '50', MntIVATasaMin: '5.00', MntNoGrv: '0.00', MntTotal: '177.00' } });
  assert.deepEqual(ls.map((l) => [l.account, l.debe.toFixed(2), l.haber.toFixed(2)]), [
    ['deudoresPorVentas', '177.00', '0.00'],
    ['ventasTasaBasica', '0.00', '100.00'],
    ['ventasTasaMinima', '0.00', '50.00'],
    ['ivaVentasTasaBasica', '0.00', '22.00'],
    ['ivaVentasTasaMinima', '0.00', '5.00'],
  ]);
  assert.equal(sum(ls, 'debe'), sum(ls, 'haber'));
});

test('credit note: the same entry reversed', () => {
  const ls = journalLines({ tipoCfe: 112, moneda: 'UYU', tipoCambio: null, totales: { MntNetoIVATasaBasica: '10.00', MntIVATasaBasica: '2.20' } });
  assert.equal(ls[0].account, 'deudoresPorVentas');
  assert.equal(ls[0].haber.toFixed(2), '12.20');
  assert.equal(ls[1].debe.toFixed(2), '10.00');
});

test('foreign currency: local-currency columns balance despite rounding', () => {
  const ls = journalLines({ tipoCfe: 121, moneda: 'USD', tipoCambio: '39.457', totales: { MntExpoyAsim: '10.01', MntNoGrv: '0.33' } });
  assert.equal(sum(ls, 'debeMN'), sum(ls, 'haberMN'));
  assert.equal(ls.find((l) => l.account === 'ventasExportacion')!.haberMN.toFixed(2), '394.96'); // 10.01 × 39.457 = 394.96457
});

test('remitos, resguardos and e-Boletas produce no lines', () => {
  for (const tipoCfe of [181, 124, 182, 151]) assert.deepEqual(journalLines({ tipoCfe, moneda: 'UYU', tipoCambio: null, totales: { MntNoGrv: '10' } }), []);
});

test('CSV: separator ;, quoted fields, CRLF', () => {
  assert.equal(csvField('a;b'), '"a;b"');
  assert.equal(csvField('di "x"'), '"di ""x"""');
  const row = { id: 7, tipoCfe: 101, serie: 'A', numero: 3, fechaEmision: '2026-03-01', moneda: 'UYU', tipoCambio: null, receptorDocumento: null, receptorNombre: 'Pérez; Hnos', totales: { MntNoGrv: '5.50' } } as unknown as IssuedCfeSummary & { totales: Record<string, unknown> };
  const csv = receiptCsv(row, DEFAULT_ACCOUNT_CODES);
  const lines = csv.split('\r\n').filter(Boolean);
  assert.equal(lines.length, 2);
  assert.equal(lines[0], '2026-03-01;7;101;A;3;1.1.3.01;Deudores por ventas;5.50;0.00;UYU;1;5.50;0.00;;"Pérez; Hnos";e-Ticket A-3');
});
