/**
 * Shared setup of the received-CFE part 2 tests: company A issues e-Facturas to company B through
 * the in-process simulated DGI; B imports A's receiver envelope when the test says the mail arrived.
 */
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import type { TestApp } from '../../../test/support/app.js';
import { setUpDgiIssuer, today } from '../dgi-submission/dgi-submission.test-helpers.js';

export interface Pair {
  a: { id: number; rut: string };
  b: { id: number; rut: string };
  customerOfB: number;
  /** A's signing certificate (PEM). */
  certificateA: string;
}

export async function issuerAndReceiver(t: TestApp, admin: string): Promise<Pair> {
  const { company: a, signer } = await setUpDgiIssuer(t, admin);
  const { company: b } = await setUpDgiIssuer(t, admin);
  const cust = await t.call(admin, 'POST', '/api/v1/cliente/crear', { idEmpresa: a.id, tipoDocumento: 2, documento: b.rut, razonSocial: 'Empresa B', direccion: 'Calle 1', ciudad: 'Montevideo', emisorElectronico: true });
  assert.equal(cust.status, 201, JSON.stringify(cust.body));
  return { a, b, customerOfB: cust.body.id, certificateA: signer.certificatePem };
}

/** A issues an e-Factura to B; `toDgi`: its envelope reaches DGI; `mailed`: B imports A's receiver envelope (returns B's received id). */
export async function issueToB(t: TestApp, admin: string, p: Pair, opts: { toDgi: boolean; mailed: boolean; price?: string }) {
  const e = await t.call(admin, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: p.a.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { idCliente: p.customerOfB }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba mate', cantidad: 3, precioUnitario: opts.price ?? '100' }] },
  });
  assert.equal(e.status, 200, JSON.stringify(e.body));
  if (opts.toDgi) {
    const w = t.modules.services.dgiSubmissionWorker;
    const env = await w.createEnvelope(p.a.id);
    assert.ok(env);
    assert.equal(await w.sendEnvelope(env.id), 'recibido');
  }
  let receivedId: number | undefined;
  if (opts.mailed && !opts.toDgi) {
    // Our own service sends a receiver envelope only after DGI received the CFE: a CFE DGI never got
    // reaches B as the signed CFE alone (importar takes one), as a careless issuer's would.
    // The stored CFE names its certificate by issuer and serial only (the envelope carries it): the
    // certificate goes into KeyInfo, outside what the signature covers.
    const [row] = (await t.db.execute(sql`select xml from issued_cfes where id = ${e.body.id}`)).rows as Array<{ xml: string }>;
    const b64 = p.certificateA.replace(/-----[^-]+-----|\s/g, '');
    const xml = row.xml.replace('<X509Data>', `<X509Data><X509Certificate>${b64}</X509Certificate>`);
    const imp = await t.call(admin, 'POST', '/api/v1/cferecibido/importar', { idEmpresa: p.b.id, xml });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    receivedId = imp.body.cfes[0].id as number;
  } else if (opts.mailed) {
    const sobre = await t.app.inject({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', payload: { idEmpresa: p.a.id, idsCfe: [e.body.id] }, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(sobre.statusCode, 200, sobre.body);
    const imp = await t.call(admin, 'POST', '/api/v1/cferecibido/importar', { idEmpresa: p.b.id, xml: sobre.body });
    assert.equal(imp.status, 200, JSON.stringify(imp.body));
    receivedId = imp.body.cfes[0].id as number;
  }
  return { issued: e.body as { id: number; serie: string; numero: number; codigoSeguridad: string; urlQr: string }, receivedId };
}

export { today };
