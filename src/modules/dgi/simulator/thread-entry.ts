/**
 * The DGI simulator's worker thread (simulator/thread.ts): runs the same simulator as
 * `startDgiSimulator`, so its HTTP server, SOAP checks, signatures and state file live on another
 * core than the API's event loop. Answers the control calls made synchronously by the main thread
 * (a reply on the control port, then a wake-up through the shared signal), and forwards each
 * request's record while the main thread has observers.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { startDgiSimulator, type DgiSimulatorControl, type DgiSimulatorOptions } from '../dgi.simulator.ts';

const { options, port, signal, nice } = workerData as { options: DgiSimulatorOptions; port: MessagePort; signal: Int32Array; nice: number };
const parent = parentPort!;

// setpriority(PRIO_PROCESS, 0) is this thread's alone on Linux (the nice value is per thread there);
// elsewhere it would slow the whole process, so it is left alone. Raising one's own nice value needs no
// privilege; where it fails the thread keeps the process's.
if (nice > 0 && process.platform === 'linux') {
  try {
    setPriority(0, nice);
  } catch {
    // keep the process's priority
  }
}

let stopObserving: (() => void) | undefined;

function answer(reply: unknown) {
  port.postMessage(reply);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

try {
  const sim = await startDgiSimulator(options);
  port.on('message', ({ method, args }: { method: string; args: unknown[] }) => {
    try {
      if (method === 'observing') {
        stopObserving?.();
        stopObserving = args[0] ? sim.control.observe((submission) => parent.postMessage({ submission })) : undefined;
        return answer({ ok: true });
      }
      // `part.method` reaches a control member that is itself an object (the registry).
      const [first, second] = method.split('.') as [keyof DgiSimulatorControl, string | undefined];
      const owner = (second ? sim.control[first] : sim.control) as unknown as Record<string, unknown>;
      const member = owner[second ?? first];
      const value = typeof member === 'function' ? (member as (...a: unknown[]) => unknown).apply(owner, args) : member;
      answer({ ok: true, value });
    } catch (error) {
      const e = error instanceof Error ? error : new Error(String(error));
      answer({ ok: false, error: { name: e.name, message: e.message } });
    }
  });
  parent.on('message', async (msg: { close?: true }) => {
    if (!msg.close) return;
    await sim.close();
    process.exit(0);
  });
  parent.postMessage({ ready: { url: sim.url, urls: sim.urls, caCertificatePem: sim.control.caCertificatePem, dgiCertificatePem: sim.control.dgiCertificatePem } });
} catch (error) {
  const e = error instanceof Error ? error : new Error(String(error));
  parent.postMessage({ failed: { name: e.name, message: e.message } });
}
