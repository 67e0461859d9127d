/** Shared by the recurring integration tests and the bench: a controllable clock, plan bodies, counts. */
import { and, eq, like, sql } from 'drizzle-orm';
import type { TestApp } from '../../../test/support/app.js';
import { issuedCfes } from '../issued-cfe/issued-cfe.tables.js';
import { recurringRuns } from './recurring.tables.js';

/** The test clock: every "now" of the recurring module reads it. */
export function testClock(start: string) {
  let at = new Date(start);
  return { now: () => at, set: (iso: string) => void (at = new Date(iso)), advanceMinutes: (m: number) => void (at = new Date(at.getTime() + m * 60_000)) };
}

export const planBody = (idEmpresa: number, over: Record<string, unknown> = {}) => ({
  idEmpresa, codComercio: 'C1', codTerminal: 'T1', nombre: 'Alquiler local 3',
  plantilla: { idDoc: { tipoCfe: 101 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Alquiler', cantidad: 1, precioUnitario: '1000' }] },
  frecuencia: { unidad: 'mes' }, anclaje: { diaDelMes: 31 }, fechaInicio: '2026-01-31',
  ...over,
});

export async function createPlan(t: TestApp, token: string, body: Record<string, unknown>, activate = true): Promise<number> {
  const r = await t.call(token, 'POST', '/api/v1/facturacionrecurrente/crear', body);
  if (r.status !== 201) throw new Error(`crear: ${r.status} ${JSON.stringify(r.body)}`);
  if (activate) {
    const a = await t.call(token, 'POST', `/api/v1/facturacionrecurrente/activar/${r.body.id}`);
    if (a.status !== 200) throw new Error(`activar: ${a.status} ${JSON.stringify(a.body)}`);
  }
  return r.body.id;
}

export async function runsOf(t: TestApp, planId: number) {
  return t.db.select().from(recurringRuns).where(eq(recurringRuns.planId, planId)).orderBy(recurringRuns.periodoDesde);
}

/** Issued CFEs whose Idempotency-Key belongs to the plan (every CFE a plan ever issued). */
export async function cfesOf(t: TestApp, companyId: number, planId: number) {
  return t.db.select({ id: issuedCfes.id, key: issuedCfes.idempotencyKey, fechaEmision: issuedCfes.fechaEmision, adenda: issuedCfes.adenda })
    .from(issuedCfes).where(and(eq(issuedCfes.companyId, companyId), like(issuedCfes.idempotencyKey, `recurrente-${planId}-%`))).orderBy(issuedCfes.id);
}

export async function countPlanCfes(t: TestApp, companyIds: number[]) {
  const r = await t.db.execute<{ n: string; keys: string }>(sql`select count(*) as n, count(distinct idempotency_key) as keys from issued_cfes where company_id = any(${`{${companyIds.join(',')}}`}::int[]) and idempotency_key like 'recurrente-%'`);
  return { cfes: Number(r.rows[0].n), keys: Number(r.rows[0].keys) };
}
