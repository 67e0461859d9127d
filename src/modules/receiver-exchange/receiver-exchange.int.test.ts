/**
 * Receiver side end to end: envelope to an electronic receiver (XSD + xmllint), e-mail job, receiver ACK upload outcomes.
 * The DGI side runs through the real submission worker and the in-process DGI simulator, called step by step
 * (envelope, EFACRECEPCIONSOBRE, EFACCONSULTARESTADOENVIO), since only CFEs DGI has go to the receiver (BRIEF 1).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany, validRut } from '../../../test/support/factories.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { loadPatchedXsdSet, validateXml } from '../../platform/xml/xsd.js';
import { ackCfeXml, ackSobreXml, motivo, type CfeResult } from '../dgi/simulator/ack-xml.js';
import { signEnveloped } from '../dgi/simulator/xmldsig.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { setUpDgiIssuer, simulatorOf } from '../dgi-submission/dgi-submission.test-helpers.js';

let t: TestApp;
let admin: string;
let company: { id: number; rut: string };
let other: { id: number; rut: string };
let customerId: number;
let sim: DgiSimulator;
/** The e-Factura of the first test: accepted by DGI, its envelope only generated (never sent to the receiver). */
let acceptedId: number;
const receiverRut = validRut();
const receiverKeys = issueTestCertificate(createTestCa(), { rut: receiverRut, name: 'Receptor SA' });
const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
const now = `${today}T12:00:00-03:00`;

async function emitFactura(adenda?: string) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: customerId }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }], ...(adenda ? { adenda } : {}) },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body as { id: number; serie: string; numero: number };
}
const car = (idEmisor: string) => ({ RUCReceptor: receiverRut, RUCEmisor: company.rut, IDRespuesta: '77', NomArch: '', FecHRecibido: now, IDEmisor: idEmisor, IDReceptor: '9001', Tmst: now });
const signed = (xml: string) => signEnveloped(xml, receiverKeys.keyPem, receiverKeys.certPem, 'sha256');
/** ACKCFE_Partes: CE (observado) carries its motives like BE (MotivosRechazoCF); the simulator builder would use ObsCFC. */
const ackCfe = (results: CfeResult[]) => {
  const xml = ackCfeXml({ ...car('1'), CantenSobre: results.length }, results.map((r) => (r.Estado === 'CE' ? { ...r, Estado: 'BE' as const, Serie: `${r.Serie}` } : r)));
  let i = 0;
  return signed(xml.replace(/<Estado>(AE|BE)<\/Estado>/g, (m, e) => (results[i++].Estado === 'CE' ? '<Estado>CE</Estado>' : m)));
};
const det = (cfe: { serie: string; numero: number }, Estado: 'AE' | 'BE' | 'CE', codes: string[] = [], tipo = '111'): CfeResult =>
  ({ Nro_ordinal: 1, TipoCFE: tipo, Serie: cfe.serie, NroCFE: String(cfe.numero), FechaCFE: today, TmstCFE: now, Estado, motivos: codes.map((c) => ({ ...motivo(c), Glosa: 'Mercadería en mal estado' })) });
const upload = (xml: string, token = admin, idEmpresa = company.id) => t.call(token, 'POST', '/api/v1/cfeemitido/respuestaReceptor', { idEmpresa, xml });
const generate = (idsCfe: number[], enviarPorCorreo?: boolean) => t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: company.id, idsCfe, ...(enviarPorCorreo ? { enviarPorCorreo } : {}) });
const dispatch = () => t.modules.services.receiverExchange.dispatch();
const worker = () => t.modules.services.dgiSubmissionWorker;
const stateOf = async (id: number) => ((await t.db.execute(sql`select estado, estado_receptor from issued_cfes where id = ${id}`)).rows[0] as { estado: string; estado_receptor: string | null });
const cfeIdsOf = async (envelopeId: number) => ((await t.db.execute(sql`select cfe_ids from receiver_envelopes where id = ${envelopeId}`)).rows[0] as { cfe_ids: number[] }).cfe_ids.map(Number);
/** The company's signed CFEs through DGI: one envelope, sent (ACKSobre), polled (ACKCFE). */
async function throughDgi() {
  const env = await worker().createEnvelope(company.id);
  assert.ok(env, 'an envelope was built');
  assert.equal(await worker().sendEnvelope(env.id), 'recibido');
  assert.equal(await worker().pollEnvelope(env.id), 'procesado');
}

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  sim = await simulatorOf(t);
  ({ company } = await setUpDgiIssuer(t, admin));
  other = await insertCompany(t);
  const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, documento: receiverRut, razonSocial: 'Receptor SA', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true, emailIntercambio: 'cfe@receptor.uy' });
  assert.equal(c.status, 201, JSON.stringify(c.body));
  assert.equal(c.body.emisorElectronico, true);
  customerId = c.body.id;
});
after(async () => t.close());

describe('happy path', () => {
  test('generarSobreReceptor returns an EnvioCFE_entreEmpresas with the Adenda, valid against the XSD (xmllint too)', async () => {
    const cfe = await emitFactura('Orden de compra 55 <urgente>');
    acceptedId = cfe.id;
    await throughDgi();
    assert.equal((await stateOf(cfe.id)).estado, 'aceptado');
    const r = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', payload: { idEmpresa: company.id, idsCfe: [cfe.id] }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(r.headers['content-type'] as string, /application\/xml/);
    const xml = r.body;
    assert.match(xml, new RegExp(`<DGICFE:RutReceptor>${receiverRut}</DGICFE:RutReceptor>`));
    assert.match(xml, /<DGICFE:Adenda>Orden de compra 55 &lt;urgente&gt;<\/DGICFE:Adenda>/);
    assert.match(xml, new RegExp(`<DGICFE:Idemisor>${r.headers['x-id-sobre']}</DGICFE:Idemisor>`));
    assert.deepEqual(validateXml('EnvioCFE_entreEmpresas', xml), { ok: true });
    const dir = mkdtempSync(path.join(tmpdir(), 'sobre-receptor-'));
    for (const [name, content] of loadPatchedXsdSet()) writeFileSync(path.join(dir, name), content);
    writeFileSync(path.join(dir, 'sobre.xml'), xml);
    try { execFileSync('which', ['xmllint'], { stdio: 'pipe' }); } catch { assert.fail('xmllint not found: install the Debian package libxml2-utils'); }
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', path.join(dir, 'EnvioCFE_entreEmpresas.xsd'), path.join(dir, 'sobre.xml')], { stdio: 'pipe' });
    // Only generated: the CFE is not marked as sent.
    const [row] = (await t.db.execute(sql`select estado_receptor from issued_cfes where id = ${cfe.id}`)).rows as Array<{ estado_receptor: string | null }>;
    assert.equal(row.estado_receptor, null);
  });

  test('the dispatcher e-mails CFEs only once DGI has them (BRIEF 1), never a CFC; marks them receptor_pendiente', async () => {
    const cfe = await emitFactura();
    // A transcribed CFC (211) for the same receiver, accepted by DGI: must never be sent to it (BRIEF 5/10).
    await t.db.execute(sql`insert into issued_cfes (company_id, branch_id, emission_point_id, cae_range_id, tipo_cfe, serie, numero, fecha_emision, tmst_firma, firmado_en, receptor_tipo_doc, receptor_documento, customer_id, moneda, totales, xml, digest_value, codigo_seguridad, url_qr, estado)
      select company_id, branch_id, emission_point_id, cae_range_id, 211, 'XA', 953001, fecha_emision, tmst_firma, firmado_en, receptor_tipo_doc, receptor_documento, customer_id, moneda, totales, xml, digest_value, codigo_seguridad, url_qr, 'aceptado' from issued_cfes where id = ${cfe.id}`);
    // Signed, not sent to DGI yet: only the e-Factura DGI accepted above goes (its envelope was only generated).
    const first = await dispatch();
    assert.equal(first.length, 1);
    assert.deepEqual(await cfeIdsOf(first[0]), [acceptedId]);
    assert.deepEqual(await stateOf(cfe.id), { estado: 'firmado', estado_receptor: null });
    // DGI unreachable: the CFE is in an envelope (en_cola_dgi) DGI never got; nothing goes to the receiver,
    // not even after longer than RECEIVER_EXCHANGE_MAX_AGE_DAYS (the age counts from the last DGI change).
    sim.control.setDown('503');
    const env = (await worker().createEnvelope(company.id))!;
    assert.equal(await worker().sendEnvelope(env.id), 'retry');
    assert.deepEqual(await stateOf(cfe.id), { estado: 'en_cola_dgi', estado_receptor: null });
    assert.deepEqual(await dispatch(), []);
    await t.db.execute(sql`update issued_cfes set firmado_en = now() - make_interval(days => ${t.config.receiverExchange.maxAgeDays + 10}) where id = ${cfe.id}`);
    // DGI received the envelope (ACKSobre AS): sent to the receiver without waiting for DGI's ACKCFE.
    sim.control.setDown(false);
    assert.equal(await worker().sendEnvelope(env.id), 'recibido');
    assert.equal((await stateOf(cfe.id)).estado, 'sobre_recibido');
    const ids = await dispatch();
    assert.equal(ids.length, 1);
    assert.deepEqual(await cfeIdsOf(ids[0]), [cfe.id]);
    assert.equal(await worker().pollEnvelope(env.id), 'procesado');
    const envRow = (await t.db.execute(sql`select * from receiver_envelopes where id = ${ids[0]}`)).rows[0] as { estado: string; email: string };
    assert.equal(envRow.estado, 'pendiente');
    assert.equal(envRow.email, 'cfe@receptor.uy');
    const states = (await t.db.execute(sql`select tipo_cfe, estado_receptor from issued_cfes where company_id = ${company.id} order by id`)).rows as Array<{ tipo_cfe: number; estado_receptor: string | null }>;
    assert.deepEqual(states.map((s) => s.estado_receptor), ['receptor_pendiente', 'receptor_pendiente', null]);
    const hist = (await t.db.execute(sql`select count(*)::int as n from issued_cfe_state_history where lado = 'receptor' and estado = 'receptor_pendiente' and referencia = ${`sobreReceptor:${ids[0]}`}`)).rows[0] as { n: number };
    assert.equal(hist.n, 1);
    // What the worker does with the queued e-mail job:
    const handler = t.modules.jobs.find((j) => j.job.name === 'receiverExchange.mail')!;
    await handler.handle({ id: ids[0] }, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 });
    const sent = (await t.db.execute(sql`select estado, intentos from receiver_envelopes where id = ${ids[0]}`)).rows[0] as { estado: string; intentos: number };
    assert.deepEqual(sent, { estado: 'enviado', intentos: 1 });
    const outbox = path.join(t.config.dataDir, 'outbox');
    const eml = readdirSync(outbox).map((f) => readFileSync(path.join(outbox, f), 'utf8')).find((m) => m.includes('cfe@receptor.uy'));
    assert.ok(eml, 'mail written');
    assert.match(eml!, /Sob_\d{12}_\d{8}_\d+\.xml/);
    assert.deepEqual(await t.modules.services.receiverExchange.dispatch(), []); // nothing left
  });

  test('receiver ACKSobre AS marks the envelope received; ACKCFE BE/CE set the receiver states, history and events once', async () => {
    const [env] = (await t.db.execute(sql`select id::int from receiver_envelopes where estado = 'enviado'`)).rows as Array<{ id: number }>;
    const sobre = await upload(signed(ackSobreXml({ ...car(String(env.id)), CantidadCFE: 2 }, 'AS', [], null)));
    assert.equal(sobre.status, 200, JSON.stringify(sobre.body));
    assert.equal(sobre.body.estadoSobre, 'recibido');

    const [a, b] = (await t.db.execute(sql`select id::int, serie, numero from issued_cfes where company_id = ${company.id} and tipo_cfe = 111 order by id`)).rows as Array<{ id: number; serie: string; numero: number }>;
    const xml = ackCfe([det(a, 'BE', ['E21']), { ...det(b, 'CE', ['E24']), Nro_ordinal: 2 }]);
    const r = await upload(xml);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.cfes.map((c: { estadoReceptor: string; cambio: boolean }) => [c.estadoReceptor, c.cambio]), [['receptor_rechazado', true], ['receptor_observado', true]]);
    assert.equal(r.body.cfes[0].motivos[0].codigo, 'E21');
    const events = (await t.db.execute(sql`select type, data from outbox_events where company_id = ${company.id} and type like 'Cfe.%Receptor' order by id`)).rows as Array<{ type: string; data: { id: number; motivos: Array<{ codigo: string }>; rutReceptor: string } }>;
    assert.deepEqual(events.map((e) => [e.type, e.data.id]), [['Cfe.RechazadoReceptor', a.id], ['Cfe.ObservadoReceptor', b.id]]);
    assert.equal(events[0].data.rutReceptor, receiverRut);
    const hist = (await t.db.execute(sql`select estado_anterior, estado, codigo from issued_cfe_state_history where issued_cfe_id = ${a.id} and lado = 'receptor' order by id`)).rows;
    assert.deepEqual(hist.at(-1), { estado_anterior: 'receptor_pendiente', estado: 'receptor_rechazado', codigo: 'E21' });
    // The same answer again changes nothing; an observed CFE may still be accepted later (answers may come split).
    const again = await upload(xml);
    assert.deepEqual(again.body.cfes.map((c: { cambio: boolean }) => c.cambio), [false, false]);
    const later = await upload(ackCfe([det(b, 'AE')]));
    assert.equal(later.body.cfes[0].estadoReceptor, 'receptor_aceptado');
    assert.equal((await t.db.execute(sql`select count(*)::int as n from outbox_events where type like 'Cfe.%Receptor'`)).rows[0].n, 2);
  });
});

describe('errors', () => {
  test('a CFE DGI rejected (annulled, BRIEF 10) is never delivered: the dispatcher skips it, generarSobreReceptor answers 409', async () => {
    const cfe = await emitFactura();
    sim.control.rejectNext({ tipoCFE: 111, serie: cfe.serie, nro: cfe.numero }, ['E05']);
    await throughDgi();
    assert.equal((await stateOf(cfe.id)).estado, 'rechazado');
    assert.deepEqual(await dispatch(), []);
    for (const enviarPorCorreo of [false, true]) {
      const r = await generate([acceptedId, cfe.id], enviarPorCorreo);
      assert.equal(r.status, 409, JSON.stringify(r.body));
      assert.equal(r.body.code, 'SOBRE_RECEPTOR_RECHAZADO_DGI');
      assert.deepEqual(r.body.idsCfe, [cfe.id]);
      assert.match(r.body.error, new RegExp(`${cfe.id} \\(111-${cfe.serie}-${cfe.numero}, rechazado\\)`));
    }
    assert.deepEqual(await stateOf(cfe.id), { estado: 'rechazado', estado_receptor: null });
    const stored = (await t.db.execute(sql`select count(*)::int as n from receiver_envelopes where cfe_ids @> ${JSON.stringify([cfe.id])}::jsonb`)).rows[0] as { n: number };
    assert.equal(stored.n, 0);
  });

  test('generarSobreReceptor refuses CFEs DGI has not received (signed; envelope refused BS): 409 SOBRE_RECEPTOR_SIN_DGI', async () => {
    const cfe = await emitFactura();
    const signed = await generate([cfe.id]);
    assert.equal(signed.status, 409, JSON.stringify(signed.body));
    assert.equal(signed.body.code, 'SOBRE_RECEPTOR_SIN_DGI');
    assert.deepEqual(signed.body.idsCfe, [cfe.id]);
    sim.control.rejectNextEnvelope(['S04']);
    const env = (await worker().createEnvelope(company.id))!;
    assert.equal(await worker().sendEnvelope(env.id), 'rechazado');
    assert.equal((await stateOf(cfe.id)).estado, 'sobre_rechazado');
    const refused = await generate([cfe.id], true);
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'SOBRE_RECEPTOR_SIN_DGI');
    assert.deepEqual(await dispatch(), []);
    assert.equal((await stateOf(cfe.id)).estado_receptor, null);
  });

  test('enviarPorCorreo to a customer with emailIntercambio that is no electronic issuer: 422 naming that cause and the fix', async () => {
    const c = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, documento: validRut(), razonSocial: 'Papel SA', direccion: 'Calle 3', ciudad: 'Montevideo', emailIntercambio: 'cfe@papel.uy' });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
      idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
      cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: c.body.id }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Resma', cantidad: 1, precioUnitario: '100' }] },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await throughDgi();
    const refused = await generate([r.body.id], true);
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal(refused.body.code, 'SOBRE_RECEPTOR_NO_ELECTRONICO');
    assert.match(refused.body.error, /Papel SA .* no es emisor electrónico: no está marcado emisorElectronico y el registro de emisores de DGI todavía no se sincronizó/);
    assert.match(refused.body.error, new RegExp(`POST /api/v1/cliente/editar \\{ idCliente: ${c.body.id}, emisorElectronico: true \\}`));
    assert.equal(refused.body.registroSincronizado, false);
    // Once the customer is flagged, the same call goes out.
    assert.equal((await t.call(admin, 'POST', '/api/v1/cliente/editar', { idCliente: c.body.id, emisorElectronico: true })).status, 200);
    assert.equal((await generate([r.body.id], true)).status, 200);
  });

  test('CFC never goes to the receiver; unknown ids 404', async () => {
    const [cfc] = (await t.db.execute(sql`select id::int from issued_cfes where tipo_cfe = 211`)).rows as Array<{ id: number }>;
    const r = await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: company.id, idsCfe: [cfc.id] });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.equal(r.body.code, 'SOBRE_RECEPTOR_CFC');
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: company.id, idsCfe: [99999999] })).body.code, 'CFE_NO_ENCONTRADO_SOBRE');
  });

  test('bad signature, not an ACK, unknown CFE, another issuer, contradicting answer', async () => {
    const [a] = (await t.db.execute(sql`select serie, numero from issued_cfes where company_id = ${company.id} and tipo_cfe = 111 order by id`)).rows as Array<{ serie: string; numero: number }>;
    const good = ackCfe([det(a, 'AE')]);
    assert.equal((await upload(good.replace('<IDReceptor>9001<', '<IDReceptor>9002<'))).body.code, 'RESPUESTA_RECEPTOR_FIRMA');
    assert.equal((await upload('<Factura/>')).body.code, 'RESPUESTA_RECEPTOR_INVALIDA');
    assert.equal((await upload(ackCfeXml({ ...car('1'), CantenSobre: 1 }, [det(a, 'AE')]))).body.code, 'RESPUESTA_RECEPTOR_FIRMA'); // unsigned
    assert.equal((await upload(ackCfe([det({ serie: 'Z', numero: 1 }, 'AE')]))).body.code, 'RESPUESTA_RECEPTOR_SIN_CFE');
    const foreign = signed(ackCfeXml({ ...car('1'), RUCEmisor: other.rut, CantenSobre: 1 }, [det(a, 'AE')]));
    assert.equal((await upload(foreign)).body.code, 'RESPUESTA_RECEPTOR_OTRA_EMPRESA');
    const contradicting = await upload(good); // a was rejected (BE) before: AE now is refused
    assert.equal(contradicting.status, 409);
    assert.equal(contradicting.body.code, 'RESPUESTA_RECEPTOR_TRANSICION');
    const unknownEnvelope = await upload(signed(ackSobreXml({ ...car('987654'), CantidadCFE: 1 }, 'BS', [motivo('S02')], null)));
    assert.equal(unknownEnvelope.body.code, 'RESPUESTA_RECEPTOR_SIN_SOBRE');
  });
});

describe('access', () => {
  test('another company cannot upload nor generate for this company; lectura cannot upload', async () => {
    await createUser(t, admin, 'ajeno-rx@test.uy', [{ idEmpresa: other.id, rol: 'administrador' }]);
    const outsider = await t.login('ajeno-rx@test.uy', 'password-123');
    assert.equal((await upload('<ACKCFE/>', outsider)).status, 404);
    const [a] = (await t.db.execute(sql`select id::int from issued_cfes where company_id = ${company.id} and tipo_cfe = 111`)).rows as Array<{ id: number }>;
    assert.equal((await t.call(outsider, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: other.id, idsCfe: [a.id] })).body.code, 'CFE_NO_ENCONTRADO_SOBRE');
    await createUser(t, admin, 'lector-rx@test.uy', [{ idEmpresa: company.id, rol: 'lectura' }]);
    const reader = await t.login('lector-rx@test.uy', 'password-123');
    assert.equal((await upload('<ACKCFE/>', reader)).status, 403);
  });
});
