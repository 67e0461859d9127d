/**
 * Where sealing runs (issue 5 point 11). With `workers` > 0 a pool of worker threads signs,
 * validates and draws the QR while the event loop goes on with HTTP, validation and the database:
 * on the 2-core target machine the API's single thread was saturated at ~3 ms of CPU per receipt,
 * a third of it sealing. With 0 it runs inline (same function, issued-cfe.sealing.ts).
 */
import { createWorkerPool, WorkerTaskError, workerEntry } from '../../platform/workers/pool.js';
import type { Cfe, SigningContext, SigningKeyMaterial } from '../emission/index.js';
import { sealCfe, SealError, type Sealed, type SealQr } from './issued-cfe.sealing.js';

export interface SealRequest {
  keyId: number;
  /** Sent only when a worker does not hold the key yet. */
  key?: SigningKeyMaterial;
  /**
   * The CFE as JSON text: JSON.stringify + JSON.parse cost about half of the structured clone
   * postMessage does on a plain object (10 against 20 µs for a 3-line ticket, issue 5 point 11);
   * the builder ignores the undefined properties JSON drops.
   */
  draftJson: string;
  qr: SealQr;
}

export interface Sealer {
  /** Reads `draft` before it returns: the caller may change the draft while the sealing runs. */
  seal(draft: Cfe, ctx: SigningContext, qr: SealQr): Promise<Sealed>;
  close(): Promise<void>;
}

const keyMaterial = (ctx: SigningContext): SigningKeyMaterial => ({
  hash: ctx.hash, privateKey: ctx.privateKey, signedInfoHead: ctx.signedInfoHead, signedInfoTail: ctx.signedInfoTail, keyInfo: ctx.keyInfo,
});

export function createSealer(opts: { workers: number }): Sealer {
  if (opts.workers <= 0) {
    return { seal: async (draft, ctx, qr) => sealCfe(draft, ctx, qr), close: async () => undefined };
  }
  const pool = createWorkerPool<SealRequest, Sealed>({ entry: workerEntry('./issued-cfe.seal-worker.ts', import.meta.url), size: opts.workers, name: 'cfe-seal' });
  // Signing contexts are cached per certificate by the certificates module: one id per context.
  const keyIds = new WeakMap<SigningContext, number>();
  let nextKeyId = 1;

  async function seal(draft: Cfe, ctx: SigningContext, qr: SealQr): Promise<Sealed> {
    let keyId = keyIds.get(ctx);
    if (keyId === undefined) keyIds.set(ctx, (keyId = nextKeyId++));
    const draftJson = JSON.stringify(draft);
    try {
      try {
        return await pool.run({ keyId, draftJson, qr });
      } catch (err) {
        if (!(err instanceof WorkerTaskError && err.name === 'MissingSigningKey')) throw err;
        return await pool.run({ keyId, key: keyMaterial(ctx), draftJson, qr });
      }
    } catch (err) {
      if (err instanceof WorkerTaskError && err.name === 'SealError') throw new SealError(err.message, err.data as SealError['data']);
      throw err;
    }
  }

  return { seal, close: () => pool.close() };
}
