/** Test setup shared by the emission integration tests, the demo and the bench: an issuing company. */
import { branches, emissionPoints } from '../companies/companies.tables.js';
import { caeRanges } from '../cae/cae.tables.js';
import { createTestCa, issueTestCertificate, toPkcs12, type TestCa } from '../../platform/crypto/pki.js';
import { CFE_TYPE_CODES } from '../emission/index.js';
import type { Db } from '../../platform/db/client.js';

type Call = (token: string, method: string, url: string, body?: unknown) => Promise<{ status: number; body: any }>;

/** Branch C1 (DGI code 2) + terminal T1, a CAE range for every electronic type, an active certificate imported through the API. */
export async function setUpIssuer(db: Db, call: Call, token: string, company: { id: number; rut: string }, opts: { ca?: TestCa; size?: number } = {}) {
  const [branch] = await db.insert(branches).values({ companyId: company.id, codComercio: 'C1', nombre: 'Casa Central', direccion: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', codigoCasaDgi: 2 }).returning();
  const [point] = await db.insert(emissionPoints).values({ companyId: company.id, branchId: branch.id, codTerminal: 'T1' }).returning();
  const size = opts.size ?? 100_000;
  let na = 90260000000 + company.id * 100;
  for (const tipoCfe of CFE_TYPE_CODES) {
    await db.insert(caeRanges).values({ companyId: company.id, tipoCfe, serie: 'A', dNro: 1, hNro: size, nextNumber: 1, caeNumber: String(na++), fa: '2026-01-01', fvd: '2027-12-31', origin: 'manual' });
  }
  const ca = opts.ca ?? createTestCa();
  const c = issueTestCertificate(ca, { rut: company.rut, name: 'Empresa de Prueba SA' });
  const archivo = toPkcs12(c.keyPem, c.certPem, 'secreto', [ca.certPem]).toString('base64');
  const res = await call(token, 'POST', '/api/v1/empresa/importarCertificado', { idEmpresa: company.id, clave: 'secreto', archivo });
  if (res.status !== 201) throw new Error(`certificate import failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { branch, point, certPem: c.certPem, ca };
}
