/**
 * The simulator's state file: a second simulator on the same file is the same DGI (keys, CAE,
 * envelopes and their answers, report sequence, overrides); a damaged file stops it with the path.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BcuSoapClient } from './bcu.soap-client.ts';
import { DgiSoapReceptionClient } from './dgi.soap-client.ts';
import { DgiSoapConsultasClient } from './dgi.consultas-client.ts';
import { startDgiSimulator } from './dgi.simulator.ts';
import { envelope, signedTicket, zeroReport } from './dgi.test-helpers.ts';
import { RutSoapClient } from './rut.soap-client.ts';
import { readSimulatorState, SimulatorStateError, type SimulatorRecord } from './simulator/state.ts';
import { verifyEnveloped } from './simulator/xmldsig.ts';

const RUC = '211234560019';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dgi-sim-state-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const rutRecord = {
  RUT: '217777770011', Denominacion: 'PERSISTIDA SA', NombreFantasia: null, TipoEntidad: '3', DescripcionTipoEntidad: 'SOCIEDAD ANONIMA',
  EstadoActividad: 'AA' as const, FechaInicioActividad: '2020-01-01', address: null, activities: [],
};

describe('simulator state file', () => {
  test('a second simulator on the same file is the same DGI', async () => {
    const statePath = path.join(dir, 'same', 'state.jsonl');
    const first = await startDgiSimulator({ statePath });
    const company = first.control.issueCompanyCertificate(RUC, 'Empresa Persistida SA');
    const { xml: caeXml } = first.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
    first.control.addRut(rutRecord);
    first.control.setRate(2225, '2026-07-10', '40.123');
    const client1 = new DgiSoapReceptionClient({ endpoint: first.urls.efactura, credentials: company, timeoutMs: 5000 });
    const sent = envelope(company, { rucEmisor: RUC, idEmisor: 1, cfes: [signedTicket(company, { rucEmisor: RUC, serie: 'A', nro: 1 })] });
    const ack = await client1.sendEnvelope(sent);
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    assert.equal((await client1.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 1 }))).Estado, 'AR');
    const before = { ca: first.control.caCertificatePem, dgi: first.control.dgiCertificatePem, caes: first.control.caes() };
    await first.close();

    const second = await startDgiSimulator({ statePath });
    after(() => second.close());
    assert.equal(second.control.caCertificatePem, before.ca);
    assert.equal(second.control.dgiCertificatePem, before.dgi);
    assert.deepEqual(second.control.caes(), before.caes);
    assert.deepEqual(verifyEnveloped(caeXml, second.control.dgiCertificatePem), { ok: true });
    // A certificate issued now chains to the same CA as the one the company already holds.
    const issued = new X509Certificate(second.control.issueCompanyCertificate(RUC, 'Empresa Persistida SA').certificatePem);
    assert.ok(issued.verify(new X509Certificate(before.ca).publicKey));

    const client2 = new DgiSoapReceptionClient({ endpoint: second.urls.efactura, credentials: company, timeoutMs: 5000 });
    // The envelope received by the first process is answered by the second, signed with the same key.
    const status = await client2.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    assert.deepEqual(status.detalles.map((d) => [d.NroCFE, d.Estado]), [['1', 'AE']]);
    assert.deepEqual(verifyEnveloped(status.xml, before.dgi), { ok: true });
    // Same Idemisor again: DGI already has it (S08); the CFE it accepted is a duplicate (E02);
    // a new number under the CAE the first process issued is accepted (not E09).
    const resent = await client2.sendEnvelope(sent);
    assert.deepEqual([resent.Estado, resent.motivos[0]?.Motivo], ['BS', 'S08']);
    // ws_consultas of the second process knows the envelope the first one received (recovery, issue 29).
    const consultas = new DgiSoapConsultasClient({ endpoint: second.urls.consultas, credentials: company, timeoutMs: 5000 });
    const held = await consultas.cfeEnvelopes({ TipoCFE: 101, Serie: 'A', Nro: 1 });
    assert.deepEqual(held.map((d) => [d.EstadoSobre, d.IdEmisor, d.IdReceptor, d.ParamConsulta?.Token]), [['AS', '1', ack.caratula.IDReceptor, ack.paramConsulta!.Token]]);
    const next = await client2.sendEnvelope(envelope(company, {
      rucEmisor: RUC, idEmisor: 2, cfes: [signedTicket(company, { rucEmisor: RUC, serie: 'A', nro: 1 }), signedTicket(company, { rucEmisor: RUC, serie: 'A', nro: 2 })],
    }));
    assert.equal(next.Estado, 'AS', JSON.stringify(next.motivos));
    assert.notEqual(next.caratula.IDReceptor, ack.caratula.IDReceptor);
    const nextStatus = await client2.queryEnvelopeStatus(next.caratula.IDReceptor, next.paramConsulta!.Token);
    assert.ok(nextStatus.ready);
    assert.deepEqual(nextStatus.detalles.map((d) => [d.NroCFE, d.Estado, d.motivos.map((m) => m.Motivo).join()]), [['1', 'BE', 'E02'], ['2', 'AE', '']]);
    // A CFE sent twice is held with both envelopes, in arrival order.
    const both = [ack.caratula.IDReceptor, next.caratula.IDReceptor];
    assert.deepEqual((await consultas.cfeEnvelopes({ TipoCFE: 101, Serie: 'A', Nro: 1 })).map((d) => d.IdReceptor), both);
    assert.deepEqual((await consultas.cfeEnvelopes({ TipoCFE: 101, Serie: 'A', Nro: 2 })).map((d) => d.IdReceptor), [next.caratula.IDReceptor]);
    // Daily report sequence, RUT and rate overrides.
    const report = await client2.sendDailyReport(zeroReport(company, { rucEmisor: RUC, secEnvio: 2 }));
    assert.equal(report.Estado, 'AR', JSON.stringify(report.motivos));
    const rut = await new RutSoapClient({ endpoint: second.urls.rut, credentials: company, timeoutMs: 5000 }).lookup(rutRecord.RUT);
    assert.equal(rut?.Denominacion, 'PERSISTIDA SA');
    assert.equal((await new BcuSoapClient({ endpoint: second.urls.bcu, timeoutMs: 5000 }).getRate('USD', '2026-07-10'))?.rate, '40.123');
  });

  test('without a state path every simulator is a new DGI', async () => {
    const a = await startDgiSimulator();
    const b = await startDgiSimulator();
    try {
      assert.notEqual(a.control.caCertificatePem, b.control.caCertificatePem);
      a.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
      assert.deepEqual(b.control.caes(), []);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('a damaged file stops the simulator with a message naming it', async () => {
    const statePath = path.join(dir, 'damaged.jsonl');
    const sim = await startDgiSimulator({ statePath });
    sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
    await sim.close();
    const good = fs.readFileSync(statePath, 'utf8');
    const lines = good.split('\n');

    fs.writeFileSync(statePath, [lines[0], '{"t":"cae","range":', lines[1], ''].join('\n'));
    const isClear = (line: RegExp) => (e: unknown) => e instanceof SimulatorStateError && e.message.includes(statePath) && line.test(e.message);
    await assert.rejects(startDgiSimulator({ statePath }), isClear(/line 2 is not JSON/));
    assert.throws(() => readSimulatorState(statePath), isClear(/line 2 is not JSON/));

    fs.writeFileSync(statePath, [lines[0], '{"t":"cae"}', ''].join('\n'));
    await assert.rejects(startDgiSimulator({ statePath }), isClear(/line 2: range/));
    fs.writeFileSync(statePath, lines.slice(1).join('\n'));
    await assert.rejects(startDgiSimulator({ statePath }), isClear(/line 1 is not a version 1 identity/));
    fs.writeFileSync(statePath, '');
    await assert.rejects(startDgiSimulator({ statePath }), isClear(/identity line is missing/));
    fs.writeFileSync(statePath, good.replace(/MII[A-Za-z0-9+/]{20}/, 'MIIAAAAAAAAAAAAAAAAAAAAA'));
    await assert.rejects(startDgiSimulator({ statePath }), isClear(/line 1 keys/));
    // The file is left as it was, for the user to look at.
    assert.match(fs.readFileSync(statePath, 'utf8'), /MIIAAAAAAAAAAAAAAAAAAAAA/);
  });

  test('a torn last line (an append cut short) is dropped and the file stays usable', async () => {
    const statePath = path.join(dir, 'torn.jsonl');
    const sim = await startDgiSimulator({ statePath });
    sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
    await sim.close();
    fs.appendFileSync(statePath, '{"t":"cae","range":{"rucEm');

    const reopened = await startDgiSimulator({ statePath });
    assert.deepEqual(reopened.control.caes().map((c) => c.serie), ['A']);
    reopened.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'B', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
    await reopened.close();
    const records: SimulatorRecord[] = [];
    readSimulatorState(statePath, (r) => records.push(r));
    assert.deepEqual(records.map((r) => r.t === 'cae' && r.range.serie), ['A', 'B']);
  });

  test('the file is read a chunk at a time: lines and multi-byte characters cut by a chunk read as when read whole', async () => {
    const statePath = path.join(dir, 'chunks.jsonl');
    const sim = await startDgiSimulator({ statePath });
    sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 10, fechaVencimiento: '2099-12-31' });
    // Two-, three- and four-byte characters, so that some chunk ends inside one of them.
    sim.control.addRut({ ...rutRecord, Denominacion: 'ÑANDÚ € SOCIEDAD 𝄞 ANÓNIMA' });
    sim.control.addRut({ ...rutRecord, RUT: '218888880018', Denominacion: 'Ü'.repeat(40) });
    await sim.close();
    const complete = fs.statSync(statePath).size;
    fs.appendFileSync(statePath, '{"t":"rut","record":{"RUT":"21999999001€'); // a torn append

    const read = (chunkBytes?: number) => {
      const records: SimulatorRecord[] = [];
      const loaded = readSimulatorState(statePath, (r) => records.push(r), { chunkBytes });
      return { records, completeBytes: loaded?.completeBytes, totalBytes: loaded?.totalBytes };
    };
    const whole = read(64 * 1024 * 1024);
    assert.deepEqual(whole.records.map((r) => r.t === 'rut' && r.record.Denominacion).filter(Boolean), ['ÑANDÚ € SOCIEDAD 𝄞 ANÓNIMA', 'Ü'.repeat(40)]);
    assert.equal(whole.completeBytes, complete);
    assert.equal(whole.totalBytes, fs.statSync(statePath).size);
    for (const chunkBytes of [1, 2, 3, 5, 7, 64, 1000]) assert.deepEqual(read(chunkBytes), whole, `chunks of ${chunkBytes} bytes`);
  });

  test('registerCae: a range it did not issue (typed in by hand) stops being E09, once, and is kept in the file', async () => {
    const statePath = path.join(dir, 'registered', 'state.jsonl');
    const sim = await startDgiSimulator({ statePath });
    const company = sim.control.issueCompanyCertificate(RUC, 'Empresa Manual SA');
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
    const send = async (idEmisor: number, nro: number) => {
      const ack = await client.sendEnvelope(envelope(company, { rucEmisor: RUC, idEmisor, cfes: [signedTicket(company, { rucEmisor: RUC, serie: 'M', nro })] }));
      const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
      assert.ok(status.ready);
      return status.detalles.map((d) => [d.Estado, d.motivos.map((m) => m.Motivo).join()]);
    };
    assert.deepEqual(await send(1, 1), [['BE', 'E09']], 'unknown range');
    const range = { rucEmisor: RUC, tipoCfe: '101', serie: 'M', desde: 1, hasta: 50, fechaVencimiento: '2099-12-31', NA: '90261234567' };
    assert.equal(sim.control.registerCae(range), true);
    assert.equal(sim.control.registerCae(range), false, 'the same range twice is recorded once');
    assert.deepEqual(await send(2, 2), [['AE', '']]);
    await sim.close();
    const reopened = await startDgiSimulator({ statePath });
    after(() => reopened.close());
    assert.deepEqual(reopened.control.caes(), [range]);
  });
});
