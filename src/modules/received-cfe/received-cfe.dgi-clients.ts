/**
 * The DGI clients of received CFE, part 2 (issue 31 points 5, 6): EFACCONSULTARCFERECIBIDOS signed
 * with the company's certificate (one client per company and certificate, like dgi-submission's
 * consultas clients) and the QR page client. Endpoints come from the wiring: DGI's in DGI_MODE=real,
 * the simulator's otherwise.
 */
import { X509Certificate } from 'node:crypto';
import type { CertificatesService } from '../certificates/certificates.service.js';
import { DgiHttpQrClient, type DgiQrClient } from '../dgi/dgi.qr-client.js';
import { DgiSoapRecibidosClient, type DgiRecibidosClient } from '../dgi/dgi.recibidos-client.js';

export interface ReceivedDgiEndpoints {
  consultas(): Promise<string>;
  qr(): Promise<string>;
  timeoutMs: number;
}

export function receivedDgiClients(certificates: Pick<CertificatesService, 'getSigningContext'>, endpoints: ReceivedDgiEndpoints) {
  const cache = new Map<number, { certificateId: number; client: DgiRecibidosClient }>();
  return {
    async recibidosClientFor(companyId: number): Promise<DgiRecibidosClient> {
      const material = await certificates.getSigningContext(companyId);
      const hit = cache.get(companyId);
      if (hit && hit.certificateId === material.certificateId) return hit.client;
      const client = new DgiSoapRecibidosClient({
        endpoint: await endpoints.consultas(),
        timeoutMs: endpoints.timeoutMs,
        credentials: {
          privateKeyPem: material.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
          certificatePem: new X509Certificate(material.certificatePem).toString(),
        },
      });
      cache.set(companyId, { certificateId: material.certificateId, client });
      return client;
    },
    async qrClient(): Promise<DgiQrClient> {
      return new DgiHttpQrClient({ baseUrl: await endpoints.qr(), timeoutMs: endpoints.timeoutMs });
    },
  };
}
