/**
 * EFACCONSULTARCFERECIBIDOS and the QR page of the simulated DGI (simulator/recibidos-service.ts)
 * through the real clients (dgi.recibidos-client.ts with WS-Security, dgi.qr-client.ts): what it
 * answers, to whom, its limits, and that a restarted simulator on the same state file remembers it.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DgiError } from './dgi.errors.ts';
import { DgiHttpQrClient, parseQrPage } from './dgi.qr-client.ts';
import { cfeRecibidosBody, DgiSoapRecibidosClient, parseDatosCfe } from './dgi.recibidos-client.ts';
import { startDgiSimulator } from './dgi.simulator.ts';

const RECEIVER = '211111110011';
const OTHER = '212222220012';
const ISSUER = '213333330013';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dgi-sim-recibidos-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const cfe = (nro: number, over: Record<string, string> = {}) => ({
  rucEmisor: ISSUER, rucReceptor: RECEIVER, tipoCfe: '111', serie: 'A', nro: String(nro), fchEmis: '2026-03-10', tmstFirma: '2026-03-10T09:00:00-03:00',
  moneda: 'UYU', totalNeto: '100.00', totalIva: '22.00', montoTotal: '122.00', totalRetenido: '0.00', montoQr: '122.00', hash: 'ab+/cd==', recibidoEn: '2026-03-10T09:01:00-03:00', ...over,
});

describe('simulated EFACCONSULTARCFERECIBIDOS and QR page', () => {
  test('answers the caller\'s RUC only, by FchEmis and filters; refuses over 31 days; survives a restart', async () => {
    const statePath = path.join(dir, 'state.jsonl');
    const sim = await startDgiSimulator({ statePath });
    sim.control.addCfeRecibido(cfe(1));
    sim.control.addCfeRecibido(cfe(2, { fchEmis: '2026-04-20', estado: 'BE' }));
    sim.control.addCfeRecibido(cfe(3, { rucReceptor: OTHER }));
    const receiver = new DgiSoapRecibidosClient({ endpoint: sim.urls.consultas, credentials: sim.control.issueCompanyCertificate(RECEIVER, 'Receptora SA'), timeoutMs: 5000 });
    const march = await receiver.cfeRecibidos({ FechaDesde: '2026-03-01', FechaHasta: '2026-03-31' });
    assert.deepEqual(march, [{ TipoCFE: 111, Serie: 'A', Nro: 1, Estado: 'AE', FechaHora: '2026-03-10T09:01:00-03:00', RUCEmisor: ISSUER, Moneda: 'UYU', TotalNeto: '100.00', TotalIVA: '22.00', MontoTotal: '122.00', TotalRetenido: '0.00' }]);
    assert.deepEqual((await receiver.cfeRecibidos({ FechaDesde: '2026-04-01', FechaHasta: '2026-04-30' })).map((d) => [d.Nro, d.Estado]), [[2, 'BE']]);
    assert.equal((await receiver.cfeRecibidos({ RUCEmisor: OTHER, FechaDesde: '2026-03-01', FechaHasta: '2026-03-31' })).length, 0);
    assert.equal((await receiver.cfeRecibidos({ TipoCFE: 111, Serie: 'A', Nro: 1, FechaDesde: '2026-03-01', FechaHasta: '2026-03-31' })).length, 1);
    await assert.rejects(receiver.cfeRecibidos({ FechaDesde: '2026-03-01', FechaHasta: '2026-04-01' }), (e: unknown) => e instanceof DgiError && /fault 100/.test(e.message));
    const other = new DgiSoapRecibidosClient({ endpoint: sim.urls.consultas, credentials: sim.control.issueCompanyCertificate(OTHER, 'Otra SA'), timeoutMs: 5000 });
    assert.deepEqual((await other.cfeRecibidos({ FechaDesde: '2026-03-01', FechaHasta: '2026-03-31' })).map((d) => d.Nro), [3]);

    const qr = new DgiHttpQrClient({ baseUrl: sim.urls.consultaQr, timeoutMs: 5000 });
    const found = await qr.check(`${ISSUER},111,A,1,122.00,10/03/2026,${encodeURIComponent('ab+/cd==')}`);
    assert.deepEqual(found, { resultado: 'encontrado', campos: { ruc: ISSUER, tipoCFE: '111', serie: 'A', nroCFE: '1', monto: '122.00', fecha: '10/03/2026', hash: 'ab+/cd==', estado: 'AE' } });
    assert.deepEqual(await qr.check(`${ISSUER},111,A,99,1,10/03/2026,x`), { resultado: 'no_encontrado' });
    await sim.close();

    const again = await startDgiSimulator({ statePath });
    const qr2 = new DgiHttpQrClient({ baseUrl: again.urls.consultaQr, timeoutMs: 5000 });
    assert.equal((await qr2.check(`${ISSUER},111,A,1,122,20260310,${encodeURIComponent('ab+/cd==')}`)).resultado, 'encontrado');
    await again.close();
  });

  test('the clients\' pure parts: request body, DatosCFE wherever nested, pages they cannot read', () => {
    assert.equal(cfeRecibidosBody({ FechaDesde: '2026-03-01', FechaHasta: '2026-03-31' }),
      '<dgi:WS_eFactura_Consultas.EFACCONSULTARCFERECIBIDOS><dgi:Consultacferecibidos><dgi:RUCEmisor></dgi:RUCEmisor><dgi:FechaDesde>2026-03-01</dgi:FechaDesde><dgi:FechaHasta>2026-03-31</dgi:FechaHasta></dgi:Consultacferecibidos></dgi:WS_eFactura_Consultas.EFACCONSULTARCFERECIBIDOS>');
    const one = { TipoCFE: '101', Serie: 'B', Nro: '7', Estado: 'AE', RUCEmisor: ISSUER };
    assert.deepEqual(parseDatosCfe({ X: { Y: { DatosCFE: [one, { ...one, Nro: 'x' }] } } }).map((d) => d.Nro), [7]);
    assert.deepEqual(parseDatosCfe({ DatosCFE: one }).length, 1);
    assert.equal(parseQrPage('<html><body>Mantenimiento</body></html>').resultado, 'ilegible');
  });
});
