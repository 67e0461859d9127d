/**
 * Annulment notices to electronic receivers end to end (BRIEF 8, CFEs_Anulados_x_RechazoDGI): real app and
 * database, DGI through the submission worker and the in-process simulator step by step, the dispatch cron's
 * handler, the e-mail job and the outbox. Kept beside receiver-exchange.int.test.ts (same setup) in its own
 * database, so "exactly one notice" counts only what happens here.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { simpleParser } from 'mailparser';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, validRut } from '../../../test/support/factories.js';
import { validateXml } from '../../platform/xml/xsd.js';
import type { DgiSimulator } from '../dgi/dgi.simulator.js';
import { setUpDgiIssuer, simulatorOf, today } from '../dgi-submission/dgi-submission.test-helpers.js';
import { verifyXmlSignature } from '../emission/index.js';

type Company = { id: number; rut: string };
let t: TestApp;
let admin: string;
let sim: DgiSimulator;
let a: Company;
let b: Company;
const receiverRut = validRut();
const rx = new Map<number, number>();
let plainCustomer: number;

async function customer(companyId: number, electronic: boolean, email: string) {
  const r = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: companyId, tipoDocumento: 2, documento: electronic ? receiverRut : validRut(), razonSocial: 'Receptor SA', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: electronic, emailIntercambio: email });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id as number;
}
async function emit(companyId: number, idCliente: number, reject = false) {
  const r = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', { idEmpresa: companyId, codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  if (reject) sim.control.rejectNext({ tipoCFE: 111, serie: r.body.serie, nro: r.body.numero }, ['E05']);
  return r.body as { id: number; serie: string; numero: number };
}
const worker = () => t.modules.services.dgiSubmissionWorker;
const service = () => t.modules.services.receiverExchange;
/** DGI receives the company's envelope (ACKSobre AS: deliverable, BRIEF 1); returns the envelope to poll later. */
async function toDgi(companyId: number) {
  const env = (await worker().createEnvelope(companyId))!;
  assert.equal(await worker().sendEnvelope(env.id), 'recibido');
  return env.id;
}
const job = (name: string) => t.modules.jobs.find((j) => j.job.name === name)!;
const runJob = (name: string, payload: object) => job(name).handle(payload, { logger: t.app.log as never, attempt: 1, maxAttempts: 10 });
const estado = async (id: number) => ((await t.db.execute(sql`select estado from issued_cfes where id = ${id}`)).rows[0] as { estado: string }).estado;
type NoticeRow = { id: number; company_id: number; cfe_ids: number[]; xml: string; file_name: string; estado: string; intentos: number; email: string };
const notices = async () => (await t.db.execute(sql`select id::int, company_id, cfe_ids, xml, file_name, estado, intentos, email from receiver_notices order by id`)).rows as unknown as NoticeRow[];

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
  sim = await simulatorOf(t);
  ({ company: a } = await setUpDgiIssuer(t, admin));
  ({ company: b } = await setUpDgiIssuer(t, admin));
  rx.set(a.id, await customer(a.id, true, 'cfe@receptor.uy'));
  rx.set(b.id, await customer(b.id, true, 'cfe-b@receptor.uy'));
  plainCustomer = await customer(a.id, false, 'otro@cliente.uy');
});
after(async () => t.close());

describe('CFEs_Anulados_x_RechazoDGI', () => {
  let rejectedMailed: { id: number; serie: string; numero: number };
  let onlyGenerated: { id: number };
  let neverMailed: { id: number };
  let bRejected: { id: number; numero: number };

  test('a CFE e-mailed to the receiver, then rejected by DGI, gets exactly one signed notice, e-mailed as Rech_<RUC>_<id>.xml', async () => {
    // Company A: two e-Facturas to the electronic receiver (one DGI will reject) and one to a plain RUT customer,
    // DGI receives the envelope; the dispatcher e-mails the first two; the third only goes in a generated envelope.
    rejectedMailed = await emit(a.id, rx.get(a.id)!, true);
    const accepted = await emit(a.id, rx.get(a.id)!);
    onlyGenerated = await emit(a.id, plainCustomer, true);
    const envA = await toDgi(a.id);
    assert.equal((await t.call(admin, 'POST', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa: a.id, idsCfe: [onlyGenerated.id] })).status, 200);
    // Company B: same receiver RUT, one CFE e-mailed (job not run yet: envelope 'pendiente') and rejected.
    bRejected = await emit(b.id, rx.get(b.id)!, true);
    const envB = await toDgi(b.id);
    const envelopes = await service().dispatch();
    assert.equal(envelopes.length, 2);
    const [envToA] = (await t.db.execute(sql`select id::int from receiver_envelopes where company_id = ${a.id} and estado = 'pendiente'`)).rows as Array<{ id: number }>;
    await runJob('receiverExchange.mail', { id: envToA.id });
    // DGI's ACKCFE: rejected (annulled, BRIEF 10) after the receiver got them.
    assert.equal(await worker().pollEnvelope(envA), 'procesado');
    assert.equal(await worker().pollEnvelope(envB), 'procesado');
    // Company A: rejected before any e-mail (never delivered, BRIEF 10).
    neverMailed = await emit(a.id, rx.get(a.id)!, true);
    assert.equal(await worker().pollEnvelope(await toDgi(a.id)), 'procesado');
    assert.deepEqual(await Promise.all([rejectedMailed, accepted, onlyGenerated, bRejected, neverMailed].map((c) => estado(c.id))), ['rechazado', 'aceptado', 'rechazado', 'rechazado', 'rechazado']);
    assert.deepEqual(await service().dispatch(), [], 'no envelope for the rejected CFE');

    await runJob('receiverExchange_dispatch', {});
    const rows = await notices();
    assert.deepEqual(rows.map((n) => [n.company_id, n.cfe_ids.map(Number), n.estado]), [[a.id, [rejectedMailed.id], 'pendiente'], [b.id, [bRejected.id], 'pendiente']].sort((x, y) => (x[0] as number) - (y[0] as number)));
    const notice = rows.find((n) => n.company_id === a.id)!;
    assert.equal(notice.file_name, `Rech_${a.rut}_${notice.id}.xml`);
    assert.equal(notice.email, 'cfe@receptor.uy');
    assert.deepEqual(validateXml('CFEs_Anulados', notice.xml), { ok: true });
    assert.equal(verifyXmlSignature(notice.xml).valid, true);
    const caratula = new RegExp(`<Caratula><RUCEmisor>${a.rut}</RUCEmisor><RUCReceptor>${receiverRut}</RUCReceptor><IDComunicacion>${notice.id}</IDComunicacion><CantCFEAnulados>1</CantCFEAnulados><Tmst>\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d-03:00</Tmst></Caratula>`);
    assert.match(notice.xml, caratula);
    assert.match(notice.xml, new RegExp(`<CFEAnulado><TipoCFE>111</TipoCFE><Serie>${rejectedMailed.serie}</Serie><NroCFE>${rejectedMailed.numero}</NroCFE><FechaCFE>${today}</FechaCFE><Motivo_Cod>RD</Motivo_Cod><Motivo_Glosa>Comprobante anulado por rechazo de DGI</Motivo_Glosa></CFEAnulado><Signature`));
    // Another company's notice carries its own RUC and CFEs only.
    const other = rows.find((n) => n.company_id === b.id)!;
    assert.match(other.xml, new RegExp(`<RUCEmisor>${b.rut}</RUCEmisor>`));
    assert.match(other.xml, new RegExp(`<NroCFE>${bRejected.numero}</NroCFE>`));
    assert.equal((other.xml.match(/<CFEAnulado>/g) ?? []).length, 1);

    // The e-mail job, recorded on the row like the envelopes'.
    await runJob('receiverExchange.noticeMail', { id: notice.id });
    const sent = (await notices()).find((n) => n.id === notice.id)!;
    assert.deepEqual([sent.estado, sent.intentos], ['enviado', 1]);
    const outbox = path.join(t.config.dataDir, 'outbox');
    const mails = await Promise.all(readdirSync(outbox).map((f) => simpleParser(readFileSync(path.join(outbox, f)))));
    const mail = mails.find((m) => m.attachments.some((x) => x.filename === notice.file_name));
    assert.ok(mail, 'notice e-mailed');
    assert.equal(mail!.to && !Array.isArray(mail!.to) ? mail!.to.text : '', 'cfe@receptor.uy');
    assert.equal(mail!.attachments.find((x) => x.filename === notice.file_name)!.content.toString('utf8'), notice.xml);
  });

  test('running dispatch again produces nothing new; concurrent dispatchers notice a new rejection once', async () => {
    const before = (await notices()).length;
    assert.deepEqual(await service().dispatchNotices(), { ids: [], skippedCompanies: [] });
    await runJob('receiverExchange_dispatch', {});
    assert.equal((await notices()).length, before);
    // An envelope whose e-mail attempts ran out ('error') never reached the receiver: no notice for its rejected CFE.
    const undelivered = await emit(a.id, rx.get(a.id)!, true);
    const envU = await toDgi(a.id);
    const [envelopeU] = await service().dispatch();
    await t.db.execute(sql`update receiver_envelopes set estado = 'error', intentos = 10 where id = ${envelopeU}`);
    assert.equal(await worker().pollEnvelope(envU), 'procesado');
    assert.equal(await estado(undelivered.id), 'rechazado');
    assert.deepEqual(await service().dispatchNotices(), { ids: [], skippedCompanies: [] });
    // One more e-mailed CFE rejected: two dispatchers at once still give one notice.
    const late = await emit(a.id, rx.get(a.id)!, true);
    const env = await toDgi(a.id);
    assert.equal((await service().dispatch()).length, 1);
    assert.equal(await worker().pollEnvelope(env), 'procesado');
    const runs = await Promise.all([service().dispatchNotices(), service().dispatchNotices()]);
    assert.equal(runs.flatMap((r) => r.ids).length, 1);
    const all = await notices();
    assert.equal(all.length, before + 1);
    assert.deepEqual(all.at(-1)!.cfe_ids.map(Number), [late.id]);
    const noticed = (await t.db.execute(sql`select issued_cfe_id::int as id from receiver_notice_cfes order by 1`)).rows.map((r) => (r as { id: number }).id);
    assert.deepEqual(noticed, [rejectedMailed.id, bRejected.id, late.id].sort((x, y) => x - y));
    assert.ok(!noticed.includes(onlyGenerated.id) && !noticed.includes(neverMailed.id), 'never e-mailed by us: no notice');
  });

  test('GET avisoAnulacionReceptor/{id}: the XML to its company, 404 to another company', async () => {
    const notice = (await notices()).find((n) => n.company_id === a.id)!;
    const r = await t.app.inject({ method: 'GET', url: `/api/v1/cfeemitido/avisoAnulacionReceptor/${notice.id}`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(r.statusCode, 200, r.body);
    assert.match(r.headers['content-type'] as string, /application\/xml/);
    assert.equal(r.body, notice.xml);
    assert.match(r.headers['content-disposition'] as string, new RegExp(notice.file_name));
    await createUser(t, admin, 'ajeno-aviso@test.uy', [{ idEmpresa: b.id, rol: 'administrador' }]);
    const outsider = await t.login('ajeno-aviso@test.uy', 'password-123');
    const denied = await t.call(outsider, 'GET', `/api/v1/cfeemitido/avisoAnulacionReceptor/${notice.id}`);
    assert.equal(denied.status, 404);
    assert.equal(denied.body.code, 'AVISO_ANULACION_NO_ENCONTRADO');
  });
});
