/**
 * CFE state table and ACK decisions, driven by the REAL DGI Testing ACKs in test/fixtures/dgi/acks/
 * (AS, BS S02, BE E04). The AE / CE / E02 / E09 rows use the real BE sample with only Estado and
 * Motivo changed (no real sample of those exists in the fixtures).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAckCfe, parseAckSobre } from '../dgi/dgi.acks.ts';
import {
  applyAckCfe,
  applyAckSobre,
  applyReceptorAckCfe,
  canTransition,
  canTransitionReceptor,
  CFE_STATES,
  CFE_TRANSITIONS,
  CfeStateError,
  DGI_PENDING_STATES,
  findAckCfeDetalle,
  markAceptadoManual,
  RECEPTOR_STATES,
  type CfeState,
} from './cfe-states.ts';

const ACKS = new URL('../../../test/fixtures/dgi/acks/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, ACKS), 'utf8');

const AS = parseAckSobre(fixture('ack-sobre-as.xml'));
const BS = parseAckSobre(fixture('ack-sobre-bs-s02.xml'));
const BE_XML = fixture('ack-cfe-be-e04.xml');
const BE = parseAckCfe(BE_XML);

/** The real BE E04 ACK with Estado / motive / type swapped. */
function variant(estado: 'AE' | 'BE' | 'CE', motivos: Array<[string, string]>, tipo = '101') {
  let xml = BE_XML.replace('<Estado>BE</Estado>', `<Estado>${estado}</Estado>`).replace('<TipoCFE>101</TipoCFE>', `<TipoCFE>${tipo}</TipoCFE>`);
  const tag = estado === 'CE' ? 'ObsCFC' : 'MotivosRechazoCF';
  const block = motivos.map(([m, g]) => `<${tag}><Motivo>${m}</Motivo><Glosa>${g}</Glosa></${tag}>`).join('');
  xml = xml.replace(/<MotivosRechazoCF>[\s\S]*<\/MotivosRechazoCF>/, block);
  return parseAckCfe(xml).detalles[0];
}

describe('transition table', () => {
  it('the DGI path firmado → en_cola_dgi → sobre_recibido → aceptado|rechazado|observado', () => {
    assert.ok(canTransition('firmado', 'en_cola_dgi'));
    assert.ok(canTransition('en_cola_dgi', 'sobre_recibido'));
    assert.ok(canTransition('en_cola_dgi', 'sobre_rechazado'));
    for (const to of ['aceptado', 'rechazado', 'observado'] as const) assert.ok(canTransition('sobre_recibido', to));
    assert.ok(canTransition('sobre_rechazado', 'en_cola_dgi'), 'CFEs of a rejected envelope are resent');
    assert.ok(canTransition('observado', 'en_cola_dgi'), 'a corrected CFC is resent');
  });

  it('no shortcuts: an ACKCFE outcome needs an accepted envelope first', () => {
    assert.equal(canTransition('firmado', 'aceptado'), false);
    assert.equal(canTransition('en_cola_dgi', 'aceptado'), false);
    assert.equal(canTransition('sobre_rechazado', 'rechazado'), false);
  });

  it('aceptado, rechazado and aceptado_manual are terminal', () => {
    for (const from of ['aceptado', 'rechazado', 'aceptado_manual'] as const) {
      for (const to of CFE_STATES) assert.equal(canTransition(from, to), false, `${from} → ${to}`);
    }
  });

  it('manual acceptance from every DGI-pending state and only from those', () => {
    for (const from of CFE_STATES) {
      assert.equal(canTransition(from, 'aceptado_manual'), DGI_PENDING_STATES.has(from), from);
      if (DGI_PENDING_STATES.has(from)) assert.deepEqual(markAceptadoManual(from).state, 'aceptado_manual');
      else assert.throws(() => markAceptadoManual(from), CfeStateError);
    }
  });

  it('every target in the table is a known state', () => {
    for (const targets of Object.values(CFE_TRANSITIONS)) for (const t of targets) assert.ok(CFE_STATES.includes(t));
  });

  it('receiver states are a separate table', () => {
    assert.ok(canTransitionReceptor('receptor_pendiente', 'receptor_aceptado'));
    assert.ok(canTransitionReceptor('receptor_pendiente', 'receptor_rechazado'));
    assert.ok(canTransitionReceptor('receptor_pendiente', 'receptor_observado'));
    assert.ok(canTransitionReceptor('receptor_observado', 'receptor_aceptado'));
    assert.equal(canTransitionReceptor('receptor_rechazado', 'receptor_aceptado'), false);
    assert.equal(RECEPTOR_STATES.some((s) => (CFE_STATES as readonly string[]).includes(s)), false);
  });
});

describe('applyAckSobre (real ACKSobre samples)', () => {
  it('AS: en_cola_dgi → sobre_recibido, no event, number kept', () => {
    assert.equal(AS.Estado, 'AS');
    assert.deepEqual(applyAckSobre('en_cola_dgi', AS), { state: 'sobre_recibido', changed: true, numberVoided: false, event: null, motivos: [] });
  });

  it('BS S02: en_cola_dgi → sobre_rechazado with the S-code, number kept (the CFE was not processed)', () => {
    const d = applyAckSobre('en_cola_dgi', BS);
    assert.equal(d.state, 'sobre_rechazado');
    assert.equal(d.numberVoided, false);
    assert.equal(d.event, null);
    assert.equal(d.motivos[0].Motivo, 'S02');
  });

  it('a replayed ACK is a no-op; an ACK in the wrong state is refused', () => {
    assert.deepEqual(applyAckSobre('sobre_recibido', AS), { state: 'sobre_recibido', changed: false, numberVoided: false, event: null, motivos: [] });
    assert.throws(() => applyAckSobre('firmado', AS), /firmado → sobre_recibido/);
    assert.throws(() => applyAckSobre('aceptado', BS), CfeStateError);
  });
});

describe('applyAckCfe (real ACKCFE sample and variants)', () => {
  it('BE E04 (real): rechazado, number voided, Cfe.RechazadoDgi with the motive', () => {
    const det = findAckCfeDetalle(BE, { tipoCfe: 101, serie: 'A', nro: 1 });
    assert.ok(det);
    const d = applyAckCfe('sobre_recibido', det);
    assert.equal(d.state, 'rechazado');
    assert.equal(d.numberVoided, true);
    assert.equal(d.event, 'Cfe.RechazadoDgi');
    assert.deepEqual(d.motivos.map((m) => [m.Motivo, m.Glosa]), [['E04', 'Firma electrónica no es válida']]);
    assert.equal(findAckCfeDetalle(BE, { tipoCfe: 101, serie: 'A', nro: 2 }), undefined);
  });

  it('AE: aceptado, no event', () => {
    const d = applyAckCfe('sobre_recibido', variant('AE', []));
    assert.deepEqual([d.state, d.numberVoided, d.event], ['aceptado', false, null]);
  });

  it('BE E02 (already received) and E09 (not our CAE) do not void the number', () => {
    for (const code of ['E02', 'E09']) {
      const d = applyAckCfe('sobre_recibido', variant('BE', [[code, 'x']]));
      assert.deepEqual([d.state, d.numberVoided, d.event], ['rechazado', false, 'Cfe.RechazadoDgi'], code);
    }
    const mixed = applyAckCfe('sobre_recibido', variant('BE', [['E04', 'x'], ['E02', 'y']]));
    assert.equal(mixed.numberVoided, false, 'E02 alongside another motive: the original is in DGI');
    for (const code of ['E01', 'E03', 'E05', 'E06', 'E10', 'E14']) {
      assert.equal(applyAckCfe('sobre_recibido', variant('BE', [[code, 'x']])).numberVoided, true, code);
    }
  });

  it('CE on a CFC (2xx): observado, Cfe.ObservadoDgi, not voided; CE on a CFE is a protocol error', () => {
    const d = applyAckCfe('sobre_recibido', variant('CE', [['C04', 'Firma electrónica no es válida']], '281'));
    assert.deepEqual([d.state, d.numberVoided, d.event, d.motivos[0].Motivo], ['observado', false, 'Cfe.ObservadoDgi', 'C04']);
    assert.throws(() => applyAckCfe('sobre_recibido', variant('CE', [['C04', 'x']], '101')), /non-contingency/);
  });

  it('an ACKCFE before the envelope was received, or after a final state, is refused', () => {
    for (const from of ['firmado', 'en_cola_dgi', 'sobre_rechazado', 'aceptado_manual'] as CfeState[]) {
      assert.throws(() => applyAckCfe(from, variant('AE', [])), CfeStateError, from);
    }
    assert.equal(applyAckCfe('rechazado', BE.detalles[0]).changed, false, 'replayed BE');
  });

  it('FE is not guessed', () => {
    assert.throws(() => applyAckCfe('sobre_recibido', { Estado: 'FE', motivos: [], TipoCFE: '101' }), /FE/);
  });
});

describe('applyReceptorAckCfe', () => {
  it('AE / BE / CE from the receiver; a receiver rejection never voids', () => {
    assert.equal(applyReceptorAckCfe('receptor_pendiente', variant('AE', [])).state, 'receptor_aceptado');
    const be = applyReceptorAckCfe('receptor_pendiente', variant('BE', [['E21', 'Mercadería en mal estado']]));
    assert.deepEqual([be.state, be.numberVoided, be.event], ['receptor_rechazado', false, 'Cfe.RechazadoReceptor']);
    const ce = applyReceptorAckCfe('receptor_pendiente', variant('CE', [['C05', 'x']], '101'));
    assert.deepEqual([ce.state, ce.event], ['receptor_observado', 'Cfe.ObservadoReceptor']);
    assert.throws(() => applyReceptorAckCfe('receptor_rechazado', variant('AE', [])), CfeStateError);
  });
});
