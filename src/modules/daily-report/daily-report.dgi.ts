/**
 * The WS_eFactura client used for EFACRECEPCIONREPORTE, built from config the way the lookups
 * module builds its clients: DGI_MODE=simulator talks to the simulator (DGI_SIMULATOR_URL or the
 * in-process one the lookups start), `real` to DGI_EFACTURA_URL. One client per company certificate.
 */
import { X509Certificate } from 'node:crypto';
import type { DgiReceptionClient } from '../dgi/dgi.client.js';
import { DgiSoapReceptionClient } from '../dgi/dgi.soap-client.js';
import { SIMULATOR_PATHS } from '../dgi/dgi.simulator.js';
import type { SigningContext } from '../emission/index.js';
import type { Lookups } from '../lookups/lookups.service.js';

export interface DgiReceptionSettings {
  mode: 'simulator' | 'real';
  simulatorUrl?: string;
  efacturaUrl: string;
}

export function createReceptionClients(settings: DgiReceptionSettings, lookups: Pick<Lookups, 'simulator'>) {
  const clients = new Map<number, { ctx: SigningContext; client: DgiReceptionClient }>();
  async function endpoint(): Promise<string> {
    if (settings.mode === 'real') return settings.efacturaUrl;
    if (settings.simulatorUrl) return settings.simulatorUrl.replace(/\/$/, '') + SIMULATOR_PATHS.efactura;
    const sim = await lookups.simulator();
    if (!sim) throw new Error('DGI simulator not available');
    return sim.urls.efactura;
  }
  return async (companyId: number, ctx: SigningContext): Promise<DgiReceptionClient> => {
    const hit = clients.get(companyId);
    if (hit && hit.ctx === ctx) return hit.client;
    const client = new DgiSoapReceptionClient({
      endpoint: await endpoint(),
      credentials: {
        privateKeyPem: ctx.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
        certificatePem: new X509Certificate(ctx.certificate.der).toString(),
        algorithm: 'sha256',
      },
    });
    clients.set(companyId, { ctx, client });
    return client;
  };
}
