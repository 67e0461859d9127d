/** Shared set-up of the usage tests: a company with a customer, metrics and a contract, through the API. */
import assert from 'node:assert/strict';
import type { TestApp } from '../../../test/support/app.js';
import { insertCompany, validRut } from '../../../test/support/factories.js';

export const HOUR = 3_600_000;

export async function ok(p: Promise<{ status: number; body: any }>, status = 201) {
  const r = await p;
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
}

/** A company with one customer and the given metrics; answers ids and a `contract(…)` maker. */
export async function usageCompany(t: TestApp, token: string, metrics: Array<Record<string, unknown>>) {
  const company = await insertCompany(t);
  const q = `?idEmpresa=${company.id}`;
  const customer = await ok(t.call(token, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, codPais: 'UY', documento: validRut(), razonSocial: 'Cliente Consumo SA' }));
  for (const m of metrics) await ok(t.call(token, 'POST', `/api/v1/metrics${q}`, m));
  const contract = async (idExterno: string, metricas: string[], extra: Record<string, unknown> = {}) =>
    ok(t.call(token, 'POST', `/api/v1/contracts${q}`, { idCliente: customer.id, idExterno, metricas, inicio: '2025-01-01T00:00:00Z', ...extra }));
  return { companyId: company.id, customerId: customer.id as number, q, contract };
}

/** POSTs a batch; answers status and body. */
export function send(t: TestApp, token: string, idEmpresa: number | undefined, eventos: unknown[]) {
  return t.call(token, 'POST', '/api/v1/usage-events', { ...(idEmpresa ? { idEmpresa } : {}), eventos });
}

/** A time inside the current hour minus `hoursAgo`, as RFC 3339. */
export const ago = (hoursAgo: number, now = Date.now()) => new Date(now - hoursAgo * HOUR).toISOString();
