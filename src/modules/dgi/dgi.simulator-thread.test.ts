/**
 * The simulator on its own thread (simulator/thread.ts), as the embedded default runs it: the same
 * DGI (an envelope accepted, a scripted rejection applied, the state file shared), its control calls
 * answered synchronously across threads, errors and Buffers carried back, observers told.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DgiSoapReceptionClient } from './dgi.soap-client.ts';
import { envelope, signedTicket } from './dgi.test-helpers.ts';
import { startDgiSimulatorThread } from './simulator/thread.ts';
import type { Submission } from './dgi.simulator.ts';

const RUC = '211234560019';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dgi-sim-thread-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('simulator thread', () => {
  test('same DGI behind a synchronous control API; state file shared with the next start', async () => {
    const statePath = path.join(dir, 'state.jsonl');
    const sim = await startDgiSimulatorThread({ statePath });
    const company = sim.control.issueCompanyCertificate(RUC, 'Empresa Hilo SA');
    assert.ok(Buffer.isBuffer(company.p12) && company.p12.length > 0);
    const { NA } = sim.control.issueCae({ rucEmisor: RUC, tipoCfe: 101, serie: 'A', desde: 1, hasta: 100, fechaVencimiento: '2099-12-31' });
    assert.deepEqual(sim.control.caes().map((c) => c.NA), [NA]);
    assert.equal(sim.control.registerCae(sim.control.caes()[0]), false);

    const seen: Submission[] = [];
    const stop = sim.control.observe((s) => seen.push(s));
    sim.control.rejectNext({ tipoCFE: 101, serie: 'A', nro: 2 }, ['E05']);
    const client = new DgiSoapReceptionClient({ endpoint: sim.urls.efactura, credentials: company, timeoutMs: 5000 });
    const sent = envelope(company, { rucEmisor: RUC, idEmisor: 1, cfes: [1, 2].map((nro) => signedTicket(company, { rucEmisor: RUC, serie: 'A', nro })) });
    const ack = await client.sendEnvelope(sent);
    assert.equal(ack.Estado, 'AS', JSON.stringify(ack.motivos));
    const status = await client.queryEnvelopeStatus(ack.caratula.IDReceptor, ack.paramConsulta!.Token);
    assert.ok(status.ready);
    assert.deepEqual(status.detalles.map((d) => [d.NroCFE, d.Estado, d.motivos.map((m) => m.Motivo)]), [['1', 'AE', []], ['2', 'BE', ['E05']]]);
    await new Promise((r) => setTimeout(r, 50)); // observers hear of a request after it was answered
    assert.deepEqual(seen.map((s) => s.service), ['EFACRECEPCIONSOBRE', 'EFACCONSULTARESTADOENVIO']);
    stop();
    assert.deepEqual(sim.control.submissions().map((s) => s.ackEstado ?? s.service), ['AS', 'EFACCONSULTARESTADOENVIO']);
    // A matcher must be data: a function cannot reach the thread, and the caller is told so.
    assert.throws(() => sim.control.rejectNext(() => true, ['E05']), /could not be cloned/);
    await sim.close();
    assert.throws(() => sim.control.caes(), /ended/);

    const again = await startDgiSimulatorThread({ statePath });
    assert.equal(again.control.caCertificatePem, sim.control.caCertificatePem);
    assert.deepEqual(again.control.caes().map((c) => c.NA), [NA]);
    const resent = await new DgiSoapReceptionClient({ endpoint: again.urls.efactura, credentials: company, timeoutMs: 5000 }).sendEnvelope(sent);
    assert.equal(resent.Estado, 'BS');
    assert.deepEqual(resent.motivos.map((m) => m.Motivo), ['S08']);
    await again.close();
  });

  // DGI_SIMULATOR_NICE: the simulated DGI waits for the cores the service leaves; nothing else in the process does.
  test('runs at the nice value it was given; the rest of the process keeps its own', { skip: process.platform !== 'linux' && 'per-thread nice values are Linux' }, async () => {
    // Threads in thread id order: the simulator's own comes first among those named after it (a thread
    // started from it, e.g. libuv's pool on first use, inherits the name but is the process's).
    const niceOf = (comm: string) => fs.readdirSync('/proc/self/task').map(Number).sort((a, b) => a - b)
      .map((tid) => ({ comm: fs.readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(), stat: fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8') }))
      .filter((t) => t.comm === comm)
      // Field 19 of /proc/<pid>/task/<tid>/stat (proc(5)); the fields after the command name start at 3.
      .map((t) => Number(t.stat.slice(t.stat.lastIndexOf(')') + 2).split(' ')[16]));
    const own = os.getPriority(0);
    const sim = await startDgiSimulatorThread({}, { nice: Math.min(own + 7, 19) });
    try {
      assert.equal(niceOf('dgi-simulator')[0], Math.min(own + 7, 19));
      assert.equal(os.getPriority(0), own);
      assert.ok(niceOf('node').every((n) => n === own), 'every other thread keeps the process\'s nice value');
      assert.equal(sim.control.caes().length, 0); // and it still answers
    } finally {
      await sim.close();
    }
  });
});
