/** Readable test data. Companies are inserted directly until a test needs the HTTP flow. */
import { branchDgiCodes, branches, companies, emissionPoints } from '../../src/modules/companies/companies.tables.js';
import { completeRut } from '../../src/lib/rut.js';
import type { TestApp } from './app.js';

let seq = 0;

/** A valid RUT (12 digits, DGI check digit, src/lib/rut.ts) derived from a counter. */
export function validRut(n = ++seq): string {
  const rut = completeRut(`21${String(100000 + (n % 900000)).padStart(6, '0')}001`);
  return rut ?? validRut(n + 1000);
}

export async function insertCompany(t: TestApp, values: { razonSocial?: string; rut?: string } = {}) {
  const [row] = await t.db
    .insert(companies)
    .values({ rut: values.rut ?? validRut(), razonSocial: values.razonSocial ?? `Empresa ${++seq} S.A.` })
    .returning();
  return row;
}

/** Creates a user through the API (as the operator admin) with roles, and logs in as them. */
export async function createUser(t: TestApp, adminToken: string, usuario: string, empresas: Array<{ idEmpresa: number; rol: 'administrador' | 'emisor' | 'lectura' }>, clave = 'password-123') {
  const res = await t.call(adminToken, 'POST', '/api/v1/usuario/crear', { usuario, nombre: usuario, clave, empresas });
  if (res.status !== 201) throw new Error(`create user failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as number, token: await t.login(usuario, clave), clave };
}

/** A branch (sucursal) of a company, with an optional DGI code history (validFrom/validTo YYYY-MM-DD). */
export async function insertBranch(
  t: TestApp,
  companyId: number,
  values: { codComercio?: string; nombre?: string; codigoCasaDgi?: number | null; enabled?: boolean; history?: Array<{ codigoDgiSucursal: number; validFrom: string; validTo?: string | null }> } = {},
) {
  const n = ++seq;
  const [row] = await t.db
    .insert(branches)
    .values({ companyId, codComercio: values.codComercio ?? `SUC${n}`, nombre: values.nombre ?? `Sucursal ${n}`, codigoCasaDgi: values.codigoCasaDgi ?? 1, enabled: values.enabled ?? true })
    .returning();
  if (values.history?.length) {
    await t.db.insert(branchDgiCodes).values(values.history.map((h) => ({ branchId: row.id, companyId: row.companyId, codigoDgiSucursal: h.codigoDgiSucursal, validFrom: h.validFrom, validTo: h.validTo ?? null })));
  }
  return row;
}

/** An emission point (terminal) of a branch. */
export async function insertEmissionPoint(t: TestApp, branch: { id: number; companyId: number }, values: { codTerminal?: string; enabled?: boolean } = {}) {
  const [row] = await t.db
    .insert(emissionPoints)
    .values({ branchId: branch.id, companyId: branch.companyId, codTerminal: values.codTerminal ?? `T${++seq}`, enabled: values.enabled ?? true })
    .returning();
  return row;
}

/** Company + branch + point ready to issue: `{ company, branch, point }` (codComercio/codTerminal on branch/point). */
export async function insertIssuer(t: TestApp, values: { razonSocial?: string } = {}) {
  const company = await insertCompany(t, values);
  const branch = await insertBranch(t, company.id);
  const point = await insertEmissionPoint(t, branch);
  return { company, branch, point };
}
