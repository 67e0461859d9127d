/**
 * Issue 28 point 5: every id inside a body belongs to the request's company. The matrix puts, in
 * every id field the OpenAPI document declares (`x-empresa-ref`), another company's existing id and
 * an id that does not exist, and expects the same status and code for both (and something else for
 * the company's own id). A completeness check fails when a body gains an id field that is neither
 * declared nor listed below as exempt with its reason.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany, validRut } from '../../../test/support/factories.js';
import { planBody } from '../../modules/recurring/recurring.test-helpers.js';
import { setUpIssuer } from '../../modules/issued-cfe/issued-cfe.test-setup.js';
import { uyToday } from '../../lib/dates.js';

type Json = Record<string, unknown>;
type Fixture = Awaited<ReturnType<typeof seed>>;
interface Case {
  /** "METHOD /path field" as the OpenAPI document names it (path params as `path:<name>`). */
  field: string;
  /** The request with `id` in the field under test; `own` is the fixture of the caller's company. */
  request(id: number, own: Fixture): { method: string; url: string; body?: Json };
  /** The id of this kind in a company's fixture. */
  pick(f: Fixture): number;
}

const FILTER = 'a search filter: another company\'s branch or point selects nothing, exactly as a nonexistent one';
/** id fields of request bodies that are not references to the request's company, and why (by field name, or "METHOD /path field"). */
const exempt: Record<string, string> = {
  idEmpresa: 'the request company itself: tenancy.ts (EMPRESA_NO_ENCONTRADA)',
  'empresas.[].idEmpresa': 'company ids of a user\'s roles: the users service checks the caller administers each',
  idUsuario: 'users are not owned by one company: the users service checks the caller administers one of theirs',
  'POST /api/v1/cfeemitido/exportarExcel idSucursal': FILTER,
  'POST /api/v1/cfeemitido/exportarExcel idPuntoEmision': FILTER,
  'POST /api/v1/ExportacionContable/exportarExt idSucursal': FILTER,
  'POST /api/v1/ExportacionContable/exportarExt idPuntoEmision': FILTER,
  'POST /api/v1/cfeemitido/descargarPdfsFiltrados idSucursal': FILTER,
  'POST /api/v1/cfeemitido/descargarPdfsFiltrados idPuntoEmision': FILTER,
  'cfe.idDoc': 'the DGI IdDoc block, not an id',
  'POST /api/v1/cferecibido/aceptar ids': 'received CFEs decided one by one: another company\'s id is reported no_encontrado in its own result, like a missing one (received-cfe access tests)',
  'POST /api/v1/cferecibido/rechazar ids': 'as aceptar: a per-id no_encontrado result',
  idExterno: 'the integrator\'s own id of a usage contract (free text, unique per company), not one of our ids',
  'POST /api/v1/cferecibido/consultarQr ids': 'received CFEs checked one by one: another company\'s id is listed in noEncontrados, like a missing one (received-cfe dgi-checks access tests)',
  'POST /api/v1/cferecibido/exportarConciliacion idConciliacion': 'the reconciliation acted on: CONCILIACION_NO_ENCONTRADA for another company\'s or a missing one (received-cfe dgi-checks access tests)',
  'PUT /api/v1/contracts/{id}/terms reglas.[].id': 'the rule\'s own name inside the contract\'s terms (free text), not one of our ids',
  'cfe.detalles.[].datosTrazabilidad.id_serie': 'checked against the line\'s variant by products.checkLines (SERIE_INVALIDA for a foreign or missing serial)',
  'plantilla.idDoc': 'the DGI IdDoc block of a recurring plan\'s CFE template, not an id',
  'plantilla.detalles.[].datosTrazabilidad.id_serie': 'as cfe.detalles.[].datosTrazabilidad.id_serie: checked by emission\'s prepare when the plan is saved',
};

/** Declared reference fields without a case here: each is the resource its route acts on, resolved by its service like the cases above. */
const notInMatrix: Record<string, string> = {
  'POST /api/v1/ordenventa/{id}/cancelar path:id': 'the order acted on: ORDEN_NO_ENCONTRADA (sales-orders access tests)',
  'POST /api/v1/cae/anular-completo idCae': 'the range acted on: CAE_NO_ENCONTRADO (cae access tests); voiding the own range would spoil other cases',
  'POST /api/v1/cae/editarCfc idCfc': 'the CFC range acted on: CFC_NO_ENCONTRADO (cfc access tests)',
  'PUT /api/v1/contracts/{id}/terms idVersionListaPrecios': 'the route names no company: the service resolves the version in the contract\'s company, another company\'s answers LISTA_PRECIOS_NO_ENCONTRADA like a missing one (contract-billing access tests)',
  'POST /api/v1/puntoemision/editar idPuntoEmision': 'the point acted on: PUNTO_EMISION_NO_ENCONTRADO (branches access tests)',
  'POST /api/v1/facturacionrecurrente/editar plantilla.receptor.idCliente': 'the same template schema as crear (cases below), resolved by the same platform check',
  'POST /api/v1/facturacionrecurrente/editar plantilla.detalles.[].idVariante': 'as crear',
  'POST /api/v1/facturacionrecurrente/editar plantilla.detalles.[].datosTrazabilidad.id_lote': 'as crear',
};

const MISSING = 2_147_483_000;
let t: TestApp;
let token: string;
let A: Fixture;
let B: Fixture;
let doc: { paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string; schema?: Json }>; requestBody?: { content: Record<string, { schema: Json }> } }>> };
const today = uyToday();

async function seed(adminToken: string) {
  const company = await insertCompany(t);
  const { branch } = await setUpIssuer(t.db, t.call, adminToken, company);
  const ok = (r: { status: number; body: any }, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const cliente = ok(await t.call(adminToken, 'POST', '/api/v1/cliente/crear', { idEmpresa: company.id, tipoDocumento: 2, codPais: 'UY', documento: validRut(), razonSocial: 'Cliente SA' }), 'cliente');
  const producto = ok(await t.call(adminToken, 'POST', '/api/v1/producto/crear', { idEmpresa: company.id, codigo: 'P1', nombre: 'Yerba', unidadMedida: 'kg', indicadorFacturacion: 3 }), 'producto');
  const variante = ok(await t.call(adminToken, 'POST', '/api/v1/producto/variante/crear', { idProducto: producto.id, codigo: 'V1', nombre: 'Yerba 1 kg', precioUnitario: '189.90' }), 'variante');
  const lote = ok(await t.call(adminToken, 'POST', `/api/v1/producto/variante/${variante.id}/lotes`, { codigo: 'L1' }), 'lote');
  const cae = ok(await t.call(adminToken, 'GET', `/api/v1/cae/todos?idEmpresa=${company.id}&tipoCfe=101`), 'cae').data[0];
  const certificados = ok(await t.call(adminToken, 'GET', `/api/v1/empresa/${company.id}/certificados`), 'certificados');
  const certificado = (certificados.data ?? certificados)[0];
  const cfe = ok(await t.call(adminToken, 'POST', '/api/v1/comprobante/emitir', {
    idEmpresa: company.id, codComercio: 'C1', codTerminal: 'T1',
    cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100' }] },
  }), 'cfe');
  const order = async () => ok(await t.call(adminToken, 'POST', '/api/v1/ordenventa/crear', {
    idEmpresa: company.id, estado: 'confirmada', detalles: [{ nombreItem: 'Yerba', cantidad: 1, precioUnitario: 100 }],
  }), 'orden').id as number;
  const plan = ok(await t.call(adminToken, 'POST', '/api/v1/facturacionrecurrente/crear', planBody(company.id)), 'plan');
  return { plan: plan.id as number, company: company.id, branch: branch.id, cliente: cliente.id as number, producto: producto.id as number, variante: variante.id as number, lote: lote.id as number,
    cae: cae.id as number, certificado: certificado.id as number, cfe: cfe.id as number, order: await order(), finalizable: await order(), newOrder: order };
}

const emitBody = (f: Fixture, cfe: Json = {}, line: Json = {}) => ({
  idEmpresa: f.company, codComercio: 'C1', codTerminal: 'T1',
  cfe: { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100', ...line }], ...cfe },
});
/** transcribirContingencia: the paper form's type, series and number (contingency 2xx). */
const paper = { idDoc: { tipoCfe: 201, serie: 'A', numero: 1, fechaEmision: today } };
const manualCae = (f: Fixture, idSucursal: number) => ({
  idEmpresa: f.company, tipoCfe: 111, serie: 'Z', desde: 1, hasta: 10, numeroCae: String(90270000000 + Math.floor(Math.random() * 1e6)),
  fechaAutorizacion: today, fechaVencimiento: today, idSucursal,
});

const planWith = (f: Fixture, plantilla: Json = {}, line: Json = {}) => planBody(f.company, {
  plantilla: { idDoc: { tipoCfe: 101 }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Yerba', cantidad: 1, precioUnitario: '100', ...line }], ...plantilla },
});

const cases: Case[] = [
  { field: 'POST /api/v1/facturacionrecurrente/crear plantilla.receptor.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/facturacionrecurrente/crear', body: planWith(f, { receptor: { idCliente: id } }) }) },
  { field: 'POST /api/v1/facturacionrecurrente/crear plantilla.detalles.[].idVariante', pick: (f) => f.variante,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/facturacionrecurrente/crear', body: planWith(f, {}, { idVariante: id }) }) },
  { field: 'POST /api/v1/facturacionrecurrente/crear plantilla.detalles.[].datosTrazabilidad.id_lote', pick: (f) => f.lote,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/facturacionrecurrente/crear', body: planWith(f, {}, { datosTrazabilidad: { id_lote: id } }) }) },
  { field: 'POST /api/v1/facturacionrecurrente/editar id', pick: (f) => f.plan,
    request: (id) => ({ method: 'POST', url: '/api/v1/facturacionrecurrente/editar', body: { id, nombre: 'Otro nombre' } }) },
  { field: 'POST /api/v1/ordenventa/crear cliente.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/ordenventa/crear', body: { idEmpresa: f.company, cliente: { idCliente: id }, detalles: [{ nombreItem: 'Yerba', cantidad: 1, precioUnitario: 100 }] } }) },
  { field: 'POST /api/v1/ordenventa/editar cliente.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/ordenventa/editar', body: { id: f.order, cliente: { idCliente: id } } }) },
  { field: 'POST /api/v1/ordenventa/editar id', pick: (f) => f.order,
    request: (id) => ({ method: 'POST', url: '/api/v1/ordenventa/editar', body: { id, observaciones: 'x' } }) },
  { field: 'POST /api/v1/ordenventa/{id}/finalizar receptor.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: `/api/v1/ordenventa/${f.finalizable}/finalizar`, body: { receptor: { idCliente: id } } }) },
  { field: 'POST /api/v1/ordenventa/{id}/finalizar path:id', pick: (f) => f.order,
    request: (id) => ({ method: 'POST', url: `/api/v1/ordenventa/${id}/finalizar`, body: {} }) },
  { field: 'GET /api/v1/ordenventa/{id} path:id', pick: (f) => f.order,
    request: (id) => ({ method: 'GET', url: `/api/v1/ordenventa/${id}` }) },
  { field: 'POST /api/v1/comprobante/emitir cfe.receptor.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/emitir', body: emitBody(f, { receptor: { idCliente: id } }) }) },
  { field: 'POST /api/v1/comprobante/emitir cfe.detalles.[].idVariante', pick: (f) => f.variante,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/emitir', body: emitBody(f, {}, { idVariante: id }) }) },
  { field: 'POST /api/v1/comprobante/emitir cfe.detalles.[].datosTrazabilidad.id_lote', pick: (f) => f.lote,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/emitir', body: emitBody(f, {}, { datosTrazabilidad: { id_lote: id } }) }) },
  { field: 'POST /api/v1/comprobante/previsualizar cfe.receptor.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/previsualizar', body: emitBody(f, { receptor: { idCliente: id } }) }) },
  { field: 'POST /api/v1/comprobante/previsualizar cfe.detalles.[].idVariante', pick: (f) => f.variante,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/previsualizar', body: emitBody(f, {}, { idVariante: id }) }) },
  { field: 'POST /api/v1/comprobante/previsualizar cfe.detalles.[].datosTrazabilidad.id_lote', pick: (f) => f.lote,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/previsualizar', body: emitBody(f, {}, { idVariante: f.variante, datosTrazabilidad: { id_lote: id } }) }) },
  { field: 'POST /api/v1/comprobante/transcribirContingencia cfe.receptor.idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/transcribirContingencia', body: emitBody(f, { ...paper, receptor: { idCliente: id } }) }) },
  { field: 'POST /api/v1/comprobante/transcribirContingencia cfe.detalles.[].idVariante', pick: (f) => f.variante,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/transcribirContingencia', body: emitBody(f, paper, { idVariante: id }) }) },
  { field: 'POST /api/v1/comprobante/transcribirContingencia cfe.detalles.[].datosTrazabilidad.id_lote', pick: (f) => f.lote,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/comprobante/transcribirContingencia', body: emitBody(f, paper, { datosTrazabilidad: { id_lote: id } }) }) },
  { field: 'POST /api/v1/cae/importar-manual idSucursal', pick: (f) => f.branch,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/cae/importar-manual', body: manualCae(f, id) }) },
  { field: 'POST /api/v1/cae/importar idSucursal', pick: (f) => f.branch,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/cae/importar', body: { idEmpresa: f.company, xml: '<CAE/>', idSucursal: id } }) },
  { field: 'POST /api/v1/cae/modificarSucursal idSucursal', pick: (f) => f.branch,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/cae/modificarSucursal', body: { idCae: f.cae, idSucursal: id } }) },
  { field: 'POST /api/v1/cae/modificarSucursal idCae', pick: (f) => f.cae,
    request: (id) => ({ method: 'POST', url: '/api/v1/cae/modificarSucursal', body: { idCae: id, idSucursal: null } }) },
  { field: 'POST /api/v1/cae/ajustar-proximo-numero idCae', pick: (f) => f.cae,
    request: (id) => ({ method: 'POST', url: '/api/v1/cae/ajustar-proximo-numero', body: { idCae: id, proximoNumero: 1 } }) },
  { field: 'POST /api/v1/empresa/asignarCertificado idCertificado', pick: (f) => f.certificado,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/empresa/asignarCertificado', body: { idEmpresa: f.company, idCertificado: id } }) },
  { field: 'POST /api/v1/cfeemitido/generarSobreDgi idsCfe.[]', pick: (f) => f.cfe,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreDgi', body: { idEmpresa: f.company, idsCfe: [id] } }) },
  { field: 'POST /api/v1/cfeemitido/generarSobreReceptor idsCfe.[]', pick: (f) => f.cfe,
    request: (id, f) => ({ method: 'POST', url: '/api/v1/cfeemitido/generarSobreReceptor', body: { idEmpresa: f.company, idsCfe: [id] } }) },
  { field: 'POST /api/v1/cfeemitido/enviarPdfPorCorreo idCfe', pick: (f) => f.cfe,
    request: (id) => ({ method: 'POST', url: '/api/v1/cfeemitido/enviarPdfPorCorreo', body: { idCfe: id, destinatarios: ['x@example.com'] } }) },
  { field: 'POST /api/v1/producto/variante/{id}/series idLote', pick: (f) => f.lote,
    request: (id, f) => ({ method: 'POST', url: `/api/v1/producto/variante/${f.variante}/series`, body: { numeroSerie: `S-${Math.random()}`, idLote: id } }) },
  { field: 'POST /api/v1/producto/variante/{id}/series path:id', pick: (f) => f.variante,
    request: (id) => ({ method: 'POST', url: `/api/v1/producto/variante/${id}/series`, body: { numeroSerie: `S-${Math.random()}` } }) },
  { field: 'POST /api/v1/producto/variante/crear idProducto', pick: (f) => f.producto,
    request: (id) => ({ method: 'POST', url: '/api/v1/producto/variante/crear', body: { idProducto: id, codigo: `V-${Math.random()}`.slice(0, 30), nombre: 'Otra' } }) },
  { field: 'POST /api/v1/producto/variante/editar idVariante', pick: (f) => f.variante,
    request: (id) => ({ method: 'POST', url: '/api/v1/producto/variante/editar', body: { idVariante: id, nombre: 'Yerba 1 kg' } }) },
  { field: 'POST /api/v1/producto/editar idProducto', pick: (f) => f.producto,
    request: (id) => ({ method: 'POST', url: '/api/v1/producto/editar', body: { idProducto: id, nombre: 'Yerba' } }) },
  { field: 'POST /api/v1/contracts idCliente', pick: (f) => f.cliente,
    request: (id, f) => ({ method: 'POST', url: `/api/v1/contracts?idEmpresa=${f.company}`, body: { idCliente: id, idExterno: `C-${Math.floor(Math.random() * 1e9)}`, metricas: [], inicio: '2026-01-01T00:00:00Z' } }) },
  { field: 'POST /api/v1/cliente/editar idCliente', pick: (f) => f.cliente,
    request: (id) => ({ method: 'POST', url: '/api/v1/cliente/editar', body: { idCliente: id, razonSocial: 'Cliente SA' } }) },
  { field: 'POST /api/v1/sucursal/editar idSucursal', pick: (f) => f.branch,
    request: (id) => ({ method: 'POST', url: '/api/v1/sucursal/editar', body: { idSucursal: id, telefono: '29001234' } }) },
  { field: 'POST /api/v1/puntoemision/crear idSucursal', pick: (f) => f.branch,
    request: (id) => ({ method: 'POST', url: '/api/v1/puntoemision/crear', body: { idSucursal: id, codTerminal: `T${Math.floor(Math.random() * 1e6)}` } }) },
];

/** Reference fields the OpenAPI document declares, as "METHOD /path field". */
function declaredFields(): Map<string, Json> {
  const out = new Map<string, Json>();
  const walk = (s: Json | undefined, prefix: string, key: string) => {
    if (!s || typeof s !== 'object') return;
    if (s['x-empresa-ref']) return void out.set(`${key} ${prefix.replace(/\.$/, '')}`, s);
    for (const [k, v] of Object.entries((s.properties as Record<string, Json>) ?? {})) walk(v, `${prefix}${k}.`, key);
    if (s.items) walk(s.items as Json, `${prefix}[].`, key);
    for (const c of ['anyOf', 'oneOf', 'allOf']) for (const x of (s[c] as Json[]) ?? []) walk(x, prefix, key);
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const key = `${method.toUpperCase()} ${path}`;
      for (const c of Object.values(op.requestBody?.content ?? {})) walk(c.schema, '', key);
      for (const p of op.parameters ?? []) if (p.schema?.['x-empresa-ref']) out.set(`${key} ${p.in}:${p.name}`, p.schema);
    }
  }
  return out;
}

/** Every id-like field of every request body, as "METHOD /path field". */
function idFieldsOfBodies(): string[] {
  const out: string[] = [];
  const walk = (s: Json | undefined, prefix: string, key: string) => {
    if (!s || typeof s !== 'object') return;
    for (const [k, v] of Object.entries((s.properties as Record<string, Json>) ?? {})) {
      if (/^(id|ids)([A-Z_]|$)|^id_/.test(k)) out.push(`${key} ${prefix}${k}`);
      walk(v, `${prefix}${k}.`, key);
    }
    if (s.items) walk(s.items as Json, `${prefix}[].`, key);
    for (const c of ['anyOf', 'oneOf', 'allOf']) for (const x of (s[c] as Json[]) ?? []) walk(x, prefix, key);
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) for (const c of Object.values(op.requestBody?.content ?? {})) walk(c.schema, '', `${method.toUpperCase()} ${path}`);
  }
  return [...new Set(out)];
}

before(async () => {
  t = await createTestApp();
  const operator = await t.adminToken();
  A = await seed(operator);
  B = await seed(operator);
  token = (await createUser(t, operator, 'admin-a-refs@test.uy', [{ idEmpresa: A.company, rol: 'administrador' }])).token;
  doc = (await t.call(undefined, 'GET', '/openapi.json')).body;
});
after(() => t.close());

describe('declarations', () => {
  it('every id field of every body is declared x-empresa-ref or exempt with a reason', () => {
    const declared = declaredFields();
    const undeclared = idFieldsOfBodies().filter((f) => ![...declared.keys()].some((d) => d === f || d === `${f}.[]`) && !exempt[f.split(' ')[2]] && !exempt[f]);
    assert.deepEqual(undeclared, []);
  });

  it('every declared reference field has a matrix case (or is listed with the reason it has none)', () => {
    const covered = new Set(cases.map((c) => c.field));
    assert.deepEqual([...declaredFields().keys()].filter((f) => !covered.has(f) && !notInMatrix[f]).sort(), []);
  });
});

describe('matrix: another company\'s id answers exactly like a missing one', () => {
  for (const c of cases) {
    it(c.field, async () => {
      const send = (r: { method: string; url: string; body?: Json }) => t.call(token, r.method, r.url, r.body);
      const foreign = await send(c.request(c.pick(B), A));
      const missing = await send(c.request(MISSING, A));
      assert.ok(foreign.status >= 400, `foreign id accepted: ${foreign.status} ${JSON.stringify(foreign.body)}`);
      assert.deepEqual([foreign.status, foreign.body.code, foreign.body.error], [missing.status, missing.body.code, missing.body.error]);
      const own = await send(c.request(c.pick(A), A));
      assert.notEqual(own.body?.code, missing.body.code, `own id refused like a missing one: ${JSON.stringify(own.body)}`);
    });
  }
});

/**
 * The same matrix with the company left out where the operation allows it (issue 43 point 2): the
 * caller administers one company, the service acts on it, and its ids are the only ones accepted.
 */
describe('matrix without idEmpresa: the company chosen for the caller is the one ids must belong to', () => {
  const withoutCompany = (r: { method: string; url: string; body?: Json }) => {
    const url = r.url.replace(/([?&])idEmpresa=\d+&?/, '$1').replace(/[?&]$/, '');
    const body = r.body && 'idEmpresa' in r.body ? Object.fromEntries(Object.entries(r.body).filter(([k]) => k !== 'idEmpresa')) : r.body;
    return { method: r.method, url, body };
  };
  const naming = cases.filter((c) => {
    const r = c.request(1, { company: 1 } as Fixture);
    return r.url.includes('idEmpresa=') || (r.body !== undefined && 'idEmpresa' in r.body);
  });
  /** Whether the operation refuses a request that names no company (then no id can get through it). */
  const needsCompany = (r: { status: number; body: any }) => r.status === 400 && (r.body?.campos ?? []).some((f: { campo: string }) => /(^|\.)idEmpresa$/.test(f.campo));
  let ran = 0;

  for (const c of naming) {
    it(c.field, async (ctx) => {
      const send = (r: { method: string; url: string; body?: Json }) => t.call(token, r.method, r.url, r.body);
      const own = await send(withoutCompany(c.request(c.pick(A), A)));
      if (needsCompany(own)) return ctx.skip('idEmpresa is required here');
      ran++;
      const foreign = await send(withoutCompany(c.request(c.pick(B), A)));
      const missing = await send(withoutCompany(c.request(MISSING, A)));
      assert.ok(foreign.status >= 400, `foreign id accepted without idEmpresa: ${foreign.status} ${JSON.stringify(foreign.body)}`);
      assert.deepEqual([foreign.status, foreign.body.code, foreign.body.error], [missing.status, missing.body.code, missing.body.error]);
      assert.notEqual(own.body?.code, missing.body.code, `own id refused like a missing one: ${JSON.stringify(own.body)}`);
    });
  }

  it('some operations took the company from the caller (contracts at least)', () => assert.ok(ran >= 1));
});
