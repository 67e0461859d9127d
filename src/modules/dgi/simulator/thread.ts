/**
 * The in-process DGI simulator of the embedded default (`npm start`, app tests) on its own worker
 * thread (issue 29 point 3): the simulated DGI's work per envelope (WS-Security check, XSD, each
 * CFE's signature, signed ACKs) took about a quarter of the API's event loop under load. It is the
 * same simulator (`startDgiSimulator`, same HTTP server and checks) reached over loopback as before;
 * only its control API crosses threads. Control calls stay synchronous (the sandbox, the CAE
 * registrar and tests call them as before): the main thread posts the call and waits on a shared
 * signal for the answer, a few microseconds unless the thread is busy with an envelope. Differences
 * with the in-thread simulator: `rejectNext` takes a data matcher (a function cannot cross threads)
 * and `observe` listeners are called asynchronously, after the request was answered.
 */
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { DgiSimulator, DgiSimulatorControl, DgiSimulatorOptions, Submission } from '../dgi.simulator.ts';
import { WORKER_RESOURCE_LIMITS, workerEntry } from '../../../platform/workers/pool.ts';
import { SimulatorStateError } from './state.ts';

const BOOT = new URL('../../../platform/workers/boot.mjs', import.meta.url);
const ENTRY = workerEntry('./thread-entry.ts', import.meta.url);
/** A control call waits this long for the thread (an envelope of 250 CFEs takes well under a second). */
const CALL_TIMEOUT_MS = 30_000;

type Reply = { ok: true; value?: unknown } | { ok: false; error: { name: string; message: string } };
type Ready = { url: string; urls: DgiSimulator['urls']; caCertificatePem: string; dgiCertificatePem: string };

function rebuild(error: { name: string; message: string }): Error {
  const e = error.name === 'SimulatorStateError' ? new SimulatorStateError(error.message) : new Error(error.message);
  e.name = error.name;
  return e;
}

/** How the thread ended: its exit code and, when it died of one, the error (an out-of-memory, an uncaught exception). */
export interface SimulatorThreadEnd {
  code: number;
  error?: Error;
}

/**
 * `nice`: the thread's nice value (0-19; default 0, the process's). Under load the simulated DGI then takes the
 * cores the service's threads leave: at 10, the lifecycle bench (`npm start`, 32 connections, 2 cores) issued
 * 650 receipts/s with p99 94 ms against 609/s and 101 ms at 0 (three pairs of 20 s runs, 2026-11-30), every
 * receipt still accepted during the load.
 */
export async function startDgiSimulatorThread(options: DgiSimulatorOptions = {}, thread: { nice?: number } = {}): Promise<DgiSimulator & { exited: Promise<SimulatorThreadEnd> }> {
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1: port, port2 } = new MessageChannel();
  const worker = new Worker(BOOT, { workerData: { entry: ENTRY.href, threadName: 'dgi-simulator', options, port: port2, signal, nice: thread.nice ?? 0 }, transferList: [port2], name: 'dgi-simulator', resourceLimits: WORKER_RESOURCE_LIMITS });
  let died: Error | undefined;
  worker.on('error', (error) => void (died = error));
  const exited = new Promise<SimulatorThreadEnd>((resolve) => worker.once('exit', (code) => resolve({ code, error: died })));
  let ended = false;
  void exited.then(() => void (ended = true));
  const listeners = new Set<(s: Submission) => void>();

  const ready = await new Promise<Ready>((resolve, reject) => {
    worker.on('message', (msg: { ready?: Ready; failed?: { name: string; message: string }; submission?: Submission }) => {
      if (msg.ready) resolve(msg.ready);
      else if (msg.failed) reject(rebuild(msg.failed));
      else if (msg.submission) for (const listener of listeners) listener(msg.submission);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`DGI simulator thread exited with code ${code} while starting`)));
  }).catch(async (error) => {
    await worker.terminate();
    throw error;
  });

  const call = (method: string, ...args: unknown[]): unknown => {
    if (ended) throw new Error('DGI simulator thread has ended');
    Atomics.store(signal, 0, 0);
    port.postMessage({ method, args });
    if (Atomics.wait(signal, 0, 0, CALL_TIMEOUT_MS) === 'timed-out') throw new Error(`DGI simulator thread did not answer ${method} within ${CALL_TIMEOUT_MS / 1000} s`);
    const reply = receiveMessageOnPort(port)?.message as Reply | undefined;
    if (!reply) throw new Error(`DGI simulator thread gave no answer to ${method}`);
    if (!reply.ok) throw rebuild(reply.error);
    return reply.value;
  };
  // Only plain data crosses threads; the few Buffers come back as Uint8Array.
  const control: DgiSimulatorControl = {
    rejectNext: (match, codes) => void call('rejectNext', match, codes),
    rejectNextEnvelope: (codes) => void call('rejectNextEnvelope', codes),
    observe: (listener) => {
      if (listeners.size === 0) call('observing', true);
      listeners.add(listener);
      return () => {
        if (listeners.delete(listener) && listeners.size === 0 && !ended) call('observing', false);
      };
    },
    setLatency: (ms) => void call('setLatency', ms),
    setDown: (down) => void call('setDown', down),
    loseNextAnswers: (service, count) => void call('loseNextAnswers', service, count),
    setDuplicateAsFault: (on) => void call('setDuplicateAsFault', on),
    setAckDelay: (ms) => void call('setAckDelay', ms),
    submissions: () => call('submissions') as Submission[],
    addRut: (info) => void call('addRut', info),
    setRate: (code, date, rate) => void call('setRate', code, date, rate),
    issueCae: (input) => call('issueCae', input) as ReturnType<DgiSimulatorControl['issueCae']>,
    registerCae: (range) => call('registerCae', range) as boolean,
    caes: () => call('caes') as ReturnType<DgiSimulatorControl['caes']>,
    issueCompanyCertificate: (rut, name) => {
      const issued = call('issueCompanyCertificate', rut, name) as ReturnType<DgiSimulatorControl['issueCompanyCertificate']>;
      return { ...issued, p12: Buffer.from(issued.p12) };
    },
    addCfeRecibido: (cfe) => void call('addCfeRecibido', cfe),
    registry: {
      set: (issuer) => void call('registry.set', issuer),
      all: () => call('registry.all') as ReturnType<DgiSimulatorControl['registry']['all']>,
    },
    caCertificatePem: ready.caCertificatePem,
    dgiCertificatePem: ready.dgiCertificatePem,
  };

  return {
    url: ready.url,
    urls: ready.urls,
    control,
    exited,
    async close() {
      if (ended) return;
      worker.postMessage({ close: true });
      await exited;
    },
  };
}
