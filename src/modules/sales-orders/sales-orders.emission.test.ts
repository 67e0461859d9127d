import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildEmitBody, defaultTipoCfe, receptorOf } from './sales-orders.emission.js';

const order = {
  id: 7, companyId: 3, tipoMoneda: 'UYU', cliente: { documento: '214844360018', nombre: 'Cliente SA' },
  detalles: [{ numeroLineaDetalle: 1, nombreItem: 'Yerba', cantidad: '2', precioUnitario: '189.9', montoItem: '379.80' }],
};

describe('happy path', () => {
  test('the emitir body is built from the order with the documented defaults', () => {
    const b = buildEmitBody(order, { codComercio: 'C1', codTerminal: 'T1' }, 111, '2026-03-10');
    assert.equal(b.idEmpresa, 3);
    assert.deepEqual(b.cfe.idDoc, { tipoCfe: 111, fechaEmision: '2026-03-10', formaPago: 1, numeroInterno: 'OV-7' });
    assert.deepEqual(b.cfe.receptor, { documento: '214844360018', razonSocial: 'Cliente SA' });
    assert.deepEqual(b.cfe.detalles[0], { numeroLineaDetalle: 1, indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: '2', unidadMedida: 'N/A', precioUnitario: '189.9', montoItem: '379.80' });
    assert.deepEqual(b.cfe.totales, { tipoMoneda: 'UYU' });
  });

  test('default type: e-Factura for a RUT receiver, e-Ticket otherwise', () => {
    assert.equal(defaultTipoCfe(receptorOf(order.cliente)), 111);
    assert.equal(defaultTipoCfe(receptorOf({ documento: '13353214' })), 101);
    assert.equal(defaultTipoCfe(receptorOf({ nombre: 'Solo nombre' })), 101);
    assert.equal(defaultTipoCfe({ idCliente: 4 }, 2), 111);
    assert.equal(defaultTipoCfe({ idCliente: 4 }, 3), 101);
    assert.equal(defaultTipoCfe({ documento: '214844360018', tipoDocumento: 4 }), 101);
  });

  test('the receptor override wins', () => {
    assert.deepEqual(receptorOf(order.cliente, { idCliente: 9 }), { idCliente: 9 });
  });
});
