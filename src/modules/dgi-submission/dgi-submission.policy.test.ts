import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseAckCfe, parseAckSobre } from '../dgi/dgi.acks.ts';
import { applyAckCfe, applyAckSobre, findAckCfeDetalle } from '../emission/cfe-states.ts';
import { CFE_STATES } from '../emission/cfe-states.ts';
import { notResendable, pollAt, retryDelayMs, uyFechaHora } from './dgi-submission.policy.ts';

const sample = (name: string) => readFileSync(new URL(`../dgi/fixtures/${name}`, import.meta.url), 'utf8');

describe('notResendable', () => {
  test('a new envelope refuses annulled (BRIEF 10) and already-at-DGI CFEs; the rest may go again', () => {
    const r = notResendable(CFE_STATES.map((estado) => ({ estado })));
    assert.deepEqual(r.anulados.map((c) => c.estado), ['rechazado']);
    assert.deepEqual(r.enDgi.map((c) => c.estado), ['sobre_recibido', 'aceptado', 'aceptado_manual']);
  });
});

describe('retryDelayMs', () => {
  const s = { baseDelayMs: 1000, maxDelayMs: 10_000, maxAttempts: 6 };
  test('doubles from the base, capped, and gives up at maxAttempts', () => {
    assert.deepEqual([1, 2, 3, 4, 5].map((a) => retryDelayMs(a, s)), [1000, 2000, 4000, 8000, 10_000]);
    assert.equal(retryDelayMs(6, s), null);
  });
});

describe('pollAt', () => {
  const now = new Date('2026-07-08T21:00:00Z');
  test("DGI's Fechahora (with offset), never before now, never after now + cap", () => {
    assert.equal(pollAt('2026-07-08T18:01:00-03:00', now, 600_000).toISOString(), '2026-07-08T21:01:00.000Z');
    assert.equal(pollAt('2026-07-08T17:00:00-03:00', now, 600_000).toISOString(), now.toISOString());
    assert.equal(pollAt('2026-07-09T18:00:00-03:00', now, 600_000).toISOString(), '2026-07-08T21:10:00.000Z');
    assert.equal(pollAt('no es fecha', now, 600_000).toISOString(), now.toISOString());
  });
  test('Caratula Fecha is Uruguay time with -03:00', () => assert.equal(uyFechaHora(now), '2026-07-08T18:00:00-03:00'));
});

describe('real DGI Testing ACKs through the state decisions (samples of 2026-07-08)', () => {
  test('ACKSobre AS → sobre_recibido, poll at its Fechahora', () => {
    const ack = parseAckSobre(sample('ack-sobre-as.xml'));
    assert.equal(applyAckSobre('en_cola_dgi', ack).state, 'sobre_recibido');
    assert.equal(pollAt(ack.paramConsulta!.Fechahora, new Date('2026-07-08T21:08:00Z'), 600_000).toISOString(), '2026-07-08T21:08:10.000Z');
  });
  test('ACKSobre BS S02 → sobre_rechazado, no event, nothing voided', () => {
    const d = applyAckSobre('en_cola_dgi', parseAckSobre(sample('ack-sobre-bs-s02.xml')));
    assert.deepEqual([d.state, d.event, d.numberVoided, d.motivos[0].Motivo], ['sobre_rechazado', null, false, 'S02']);
  });
  test('ACKCFE BE E04 → rechazado, number voided, Cfe.RechazadoDgi', () => {
    const ack = parseAckCfe(sample('ack-cfe-be-e04.xml'), 'DGI');
    const det = ack.detalles[0];
    assert.equal(findAckCfeDetalle(ack, { tipoCfe: det.TipoCFE!, serie: det.Serie!, nro: det.NroCFE! }), det);
    const d = applyAckCfe('sobre_recibido', det);
    assert.deepEqual([d.state, d.event, d.numberVoided, d.motivos[0].Motivo], ['rechazado', 'Cfe.RechazadoDgi', true, 'E04']);
  });
});
