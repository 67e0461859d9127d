/** Readable test data. Companies are inserted directly until a test needs the HTTP flow. */
import { companies } from '../../src/modules/companies/companies.tables.js';
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
