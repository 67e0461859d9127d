/**
 * Worker-thread entry of the sealing pool (issued-cfe.sealer.ts). Keeps the signing keys it was
 * sent by id; a task for a key it does not hold fails with MissingSigningKey and the sealer
 * resends it with the key (KeyObjects cross threads by postMessage).
 */
import { serveWorkerTasks } from '../../platform/workers/pool.js';
import type { Cfe, SigningKeyMaterial } from '../emission/index.js';
import { sealCfe, type Sealed } from './issued-cfe.sealing.js';
import type { SealRequest } from './issued-cfe.sealer.js';

const MAX_KEYS = 4096;
const keys = new Map<number, SigningKeyMaterial>();

serveWorkerTasks<SealRequest, Sealed>((t) => {
  if (t.key) {
    keys.set(t.keyId, t.key);
    if (keys.size > MAX_KEYS) keys.delete(keys.keys().next().value!);
  }
  const key = keys.get(t.keyId);
  if (!key) throw Object.assign(new Error(`signing key ${t.keyId} not loaded in this worker`), { name: 'MissingSigningKey' });
  return sealCfe(JSON.parse(t.draftJson) as Cfe, key, t.qr);
});
