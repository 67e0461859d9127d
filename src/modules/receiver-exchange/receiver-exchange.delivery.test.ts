import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CFE_STATES } from '../emission/cfe-states.ts';
import { undeliverable } from './receiver-exchange.delivery.ts';

test('every DGI state has a receiver decision: delivered once DGI has it (BRIEF 1), never when rejected (BRIEF 10)', () => {
  const cfes = CFE_STATES.map((estado, id) => ({ id, estado }));
  const { rechazados, sinDgi } = undeliverable(cfes);
  const blocked = new Set([...rechazados, ...sinDgi].map((c) => c.estado));
  assert.deepEqual(CFE_STATES.filter((s) => !blocked.has(s)), ['sobre_recibido', 'aceptado', 'aceptado_manual']);
  assert.deepEqual(rechazados.map((c) => c.estado), ['rechazado']);
  assert.deepEqual(sinDgi.map((c) => c.estado), ['firmado', 'en_cola_dgi', 'sobre_rechazado', 'observado']);
});
