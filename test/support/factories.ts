/** Readable test data. Companies are inserted directly until a test needs the HTTP flow. */
import { companies } from '../../src/modules/companies/companies.tables.js';
import type { TestApp } from './app.js';

let seq = 0;

/** A valid RUT (12 digits, DGI check digit) derived from a counter. */
export function validRut(n = ++seq): string {
  const base = `21${String(100000 + (n % 900000)).padStart(6, '0')}001`; // 11 digits
  const weights = [4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const sum = base.split('').reduce((acc, d, i) => acc + Number(d) * weights[i], 0);
  let check = 11 - (sum % 11);
  if (check === 11) check = 0;
  if (check === 10) return validRut(n + 1000);
  return base + String(check);
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
