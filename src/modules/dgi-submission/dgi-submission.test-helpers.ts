/** Shared by the DGI submission integration tests: an issuer the simulator knows, the runner, waits. */
import type { TestApp } from '../../../test/support/app.js';
import { insertCompany } from '../../../test/support/factories.js';
import { startJobRunner, type JobRunner } from '../../platform/jobs/runner.js';
import { createLogger } from '../../platform/logger.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { setUpIssuer } from '../issued-cfe/issued-cfe.test-setup.js';

export const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

export async function simulatorOf(t: TestApp): Promise<DgiSimulator> {
  const sim = await t.modules.services.lookups.simulator();
  if (!sim) throw new Error('the tests need the in-process DGI simulator (DGI_MODE=simulator without DGI_SIMULATOR_URL)');
  return sim;
}

/**
 * A company ready to emit whose CAE ranges the simulator issued (so no E03/E09) and whose active
 * certificate the simulator's CA issued (so no E04 "certificate not trusted"), with the key in the
 * test's hands (to sign a CFC or send an envelope by hand).
 */
export async function setUpDgiIssuer(t: TestApp, admin: string) {
  const company = await insertCompany(t);
  const setup = await setUpIssuer(t.db, t.call, admin, company);
  const sim = await simulatorOf(t);
  const cert = sim.control.issueCompanyCertificate(company.rut, 'Empresa de Prueba SA');
  const archivo = cert.p12.toString('base64');
  const res = await t.call(admin, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: cert.password, archivo, activar: true });
  if (res.status !== 201) throw new Error(`certificate import failed: ${res.status} ${JSON.stringify(res.body)}`);
  for (const tipoCfe of [101, 102, 103, 111, 112, 113]) {
    sim.control.issueCae({ rucEmisor: company.rut, tipoCfe, serie: 'A', desde: 1, hasta: 100_000, fechaVencimiento: '2027-12-31' });
  }
  return { company, ...setup, signer: { privateKeyPem: cert.privateKeyPem, certificatePem: cert.certificatePem } };
}

export const ticket = (idEmpresa: number, extra: Record<string, unknown> = {}) => ({
  idEmpresa, codComercio: 'C1', codTerminal: 'T1',
  cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 2, precioUnitario: '189.90' }], ...extra },
});

export async function emitTicket(t: TestApp, token: string, idEmpresa: number): Promise<{ id: number; numero: number; serie: string }> {
  const r = await t.call(token, 'POST', '/api/v1/comprobante/emitir', ticket(idEmpresa));
  if (r.status !== 200) throw new Error(`emitir failed: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export function startRunner(t: TestApp): Promise<JobRunner> {
  return startJobRunner({ pool: t.database.pool, jobs: t.modules.jobs, cron: [], concurrency: 2, logger: createLogger(t.config) });
}

/** Polls until `check` returns a value (not a timed assertion: the deadline only stops a hung test). */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false>, deadlineMs = 30_000): Promise<T> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The first event of the company's feed matching `match`. Waits: the feed shows an event only once
 * every transaction older than it has ended (events module), and a job of the runner may hold one open.
 */
export async function waitForEvent(t: TestApp, token: string, idEmpresa: number, what: string, match: (e: any) => boolean) {
  return waitFor(what, async () => {
    const feed = await t.call(token, 'GET', `/api/v1/eventos?idEmpresa=${idEmpresa}&length=500`);
    return (feed.body.data as any[]).find(match);
  });
}

export async function waitForState(t: TestApp, token: string, id: number, states: string[]) {
  return waitFor(`CFE ${id} in ${states.join('/')}`, async () => {
    const r = await t.call(token, 'GET', `/api/v1/cfeemitido/${id}/estados`);
    return states.includes(r.body?.estado) ? r.body : undefined;
  });
}
