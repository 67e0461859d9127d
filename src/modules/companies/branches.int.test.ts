import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany } from '../../../test/support/factories.js';
import { JPEG_GARBAGE, PNG_GARBAGE } from '../documents/raster-image.fixtures.js';

let t: TestApp;
let admin: string;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
});
after(() => t.close());

async function createBranch(token: string, body: Record<string, unknown>) {
  const res = await t.call(token, 'POST', '/api/v1/sucursal/crear', { nombre: `Sucursal ${body.codComercio}`, ...body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function createPoint(token: string, idSucursal: number, codTerminal: string, habilitada = true) {
  const res = await t.call(token, 'POST', '/api/v1/puntoemision/crear', { idSucursal, codTerminal, descripcion: `Caja ${codTerminal}`, habilitada });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const codeAt = async (id: number, fecha: string) => (await t.call(admin, 'GET', `/api/v1/sucursal/${id}/codigoDgi?fecha=${fecha}`)).body;

describe('happy path', () => {
  it('creates two branches with code histories and resolves the DGI code at each date (spec 2.2 rule 5)', async () => {
    const company = await insertCompany(t);
    await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: company.id, CodigoCasaDgiPorDefecto: 9, email: 'cfe@empresa.uy', departamento: 'Canelones' });
    const a = await createBranch(admin, {
      idEmpresa: company.id, codComercio: 'CENTRO', CodigoCasaDgi: 5, telefono: '29000000', ciudad: 'Montevideo',
      codigosDgi: [
        { codigoDgiSucursal: 2, vigenciaDesde: '2025-03-01' },
        { codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01', vigenciaHasta: '2024-12-31' },
      ],
    });
    assert.deepEqual(a.codigosDgi, [
      { codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01', vigenciaHasta: '2024-12-31' },
      { codigoDgiSucursal: 2, vigenciaDesde: '2025-03-01', vigenciaHasta: null },
    ]);
    const b = await createBranch(admin, { idEmpresa: company.id, codComercio: 'POCITOS', codigosDgi: [{ codigoDgiSucursal: 7, vigenciaDesde: '2025-01-01', vigenciaHasta: '2025-06-30' }] });

    // Branch A: before the first window → branch code; inside/edges → history; gap → branch code; open window → 2.
    assert.deepEqual(await codeAt(a.id, '2023-12-31'), { idSucursal: a.id, fecha: '2023-12-31', codigoDgiSucursal: 5, origen: 'sucursal' });
    assert.equal((await codeAt(a.id, '2024-01-01')).codigoDgiSucursal, 1);
    assert.equal((await codeAt(a.id, '2024-12-31')).codigoDgiSucursal, 1);
    assert.deepEqual((await codeAt(a.id, '2025-02-01')), { idSucursal: a.id, fecha: '2025-02-01', codigoDgiSucursal: 5, origen: 'sucursal' });
    assert.deepEqual((await codeAt(a.id, '2026-11-21')), { idSucursal: a.id, fecha: '2026-11-21', codigoDgiSucursal: 2, origen: 'historial' });
    // Branch B has no CodigoCasaDgi: outside its window the company default applies.
    assert.deepEqual((await codeAt(b.id, '2024-12-31')), { idSucursal: b.id, fecha: '2024-12-31', codigoDgiSucursal: 9, origen: 'empresa' });
    assert.equal((await codeAt(b.id, '2025-06-30')).codigoDgiSucursal, 7);
    assert.equal((await codeAt(b.id, '2025-07-01')).origen, 'empresa');

    // The emission resolver gives the same answers in one query.
    await createPoint(admin, a.id, 'CAJA1');
    await createPoint(admin, b.id, 'CAJA1');
    const resolve = t.modules.services.companies.resolveEmissionPoint;
    const r = await resolve({ idEmpresa: company.id, codComercio: 'CENTRO', codTerminal: 'CAJA1', fecha: '2024-06-15' });
    assert.equal(r.codigoDgiSucursal, 1);
    assert.equal(r.branch.id, a.id);
    assert.equal(r.company.id, company.id);
    assert.equal(r.point.codTerminal, 'CAJA1');
    assert.equal(r.branch.telefono, '29000000');
    // Spec 2.2 rules 2-3: identity from the company; contact data from the branch, else the company.
    assert.deepEqual(r.emisor, {
      RUCEmisor: company.rut, RznSoc: company.razonSocial, Telefono: ['29000000'], CorreoEmisor: 'cfe@empresa.uy',
      EmiSucursal: 'Sucursal CENTRO', CdgDGISucur: 1, DomFiscal: '', Ciudad: 'Montevideo', Departamento: 'Canelones',
    });
    assert.equal((await resolve({ idEmpresa: company.id, codComercio: 'CENTRO', codTerminal: 'CAJA1', fecha: '2023-01-01' })).codigoDgiSucursal, 5);
    assert.equal((await resolve({ idEmpresa: company.id, codComercio: 'CENTRO', codTerminal: 'CAJA1', fecha: '2025-03-01' })).codigoDgiSucursal, 2);
    const rb = await resolve({ idEmpresa: company.id, codComercio: 'POCITOS', codTerminal: 'CAJA1', fecha: '2025-01-01' });
    assert.equal(rb.branch.id, b.id);
    assert.equal(rb.codigoDgiSucursal, 7);
    assert.equal((await resolve({ idEmpresa: company.id, codComercio: 'POCITOS', codTerminal: 'CAJA1', fecha: '2025-12-01' })).codigoDgiSucursal, 9);
  });

  it('edits a branch, replacing its history, and lists/pages branches and companies with branches', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'S1', codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01' }] });
    await createBranch(admin, { idEmpresa: company.id, codComercio: 'S2' });
    await createBranch(admin, { idEmpresa: company.id, codComercio: 'S3', habilitada: false });
    const ed = await t.call(admin, 'POST', '/api/v1/sucursal/editar', { idSucursal: br.id, nombre: 'Principal', codigosDgi: [{ codigoDgiSucursal: 3, vigenciaDesde: '2025-01-01' }] });
    assert.equal(ed.status, 200, JSON.stringify(ed.body));
    assert.equal(ed.body.nombre, 'Principal');
    assert.deepEqual(ed.body.codigosDgi, [{ codigoDgiSucursal: 3, vigenciaDesde: '2025-01-01', vigenciaHasta: null }]);
    assert.equal((await t.call(admin, 'GET', `/api/v1/sucursal/${br.id}`)).body.codigosDgi[0].codigoDgiSucursal, 3);

    const p1 = await t.call(admin, 'GET', `/api/v1/sucursal/todas?idEmpresa=${company.id}&start=0&length=2`);
    assert.equal(p1.status, 200);
    assert.equal(p1.body.total, 3);
    assert.deepEqual(p1.body.data.map((b: { codComercio: string }) => b.codComercio), ['S1', 'S2']);
    const p2 = await t.call(admin, 'GET', `/api/v1/sucursal/todas?idEmpresa=${company.id}&start=2&length=2`);
    assert.deepEqual(p2.body.data.map((b: { codComercio: string }) => b.codComercio), ['S3']);
    const enabled = await t.call(admin, 'GET', `/api/v1/sucursal/todas?idEmpresa=${company.id}&habilitada=1`);
    assert.equal(enabled.body.total, 2);

    const code = await t.call(admin, 'GET', `/api/v1/sucursal/getCodigoComercio?idSucursal=${br.id}`);
    assert.deepEqual(code.body, { idSucursal: br.id, idEmpresa: company.id, codComercio: 'S1' });

    const tree = await t.call(admin, 'GET', '/api/v1/sucursal/getEmpresasSucursales?length=500');
    const mine = tree.body.data.find((c: { idEmpresa: number }) => c.idEmpresa === company.id);
    assert.deepEqual(mine.sucursales.map((s: { codComercio: string }) => s.codComercio), ['S1', 'S2']);
  });

  it('creates, edits, lists and finds emission points', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'P1' });
    const br2 = await createBranch(admin, { idEmpresa: company.id, codComercio: 'P2' });
    const c1 = await createPoint(admin, br.id, 'T1');
    await createPoint(admin, br.id, 'T2', false);
    await createPoint(admin, br2.id, 'T1');
    assert.deepEqual(c1, { id: c1.id, idSucursal: br.id, idEmpresa: company.id, codComercio: 'P1', codTerminal: 'T1', descripcion: 'Caja T1', habilitada: true });

    const all = await t.call(admin, 'GET', `/api/v1/puntoemision/todos?idEmpresa=${company.id}`);
    assert.equal(all.body.total, 3);
    const t1 = await t.call(admin, 'GET', `/api/v1/puntoemision/todos?idEmpresa=${company.id}&codTerminal=T1&start=1&length=1`);
    assert.equal(t1.body.total, 2);
    assert.deepEqual(t1.body.data.map((p: { codComercio: string }) => p.codComercio), ['P2']);
    const off = await t.call(admin, 'GET', `/api/v1/puntoemision/todos?idEmpresa=${company.id}&habilitada=0`);
    assert.deepEqual(off.body.data.map((p: { codTerminal: string }) => p.codTerminal), ['T2']);

    const ofBranch = await t.call(admin, 'GET', `/api/v1/puntoemision/sucursal/${br.id}?idEmpresa=${company.id}`);
    assert.equal(ofBranch.body.total, 2);
    const found = await t.call(admin, 'GET', `/api/v1/puntoemision/getBySucursalTerminal/${br2.id}?idEmp=${company.id}&codTerm=T1`);
    assert.equal(found.status, 200);
    assert.equal(found.body.idSucursal, br2.id);

    const ed = await t.call(admin, 'POST', '/api/v1/puntoemision/editar', { idPuntoEmision: c1.id, habilitada: false, codTerminal: 'T9' });
    assert.equal(ed.status, 200);
    assert.equal(ed.body.codTerminal, 'T9');
    assert.equal((await t.call(admin, 'GET', `/api/v1/puntoemision/${c1.id}`)).body.habilitada, false);
  });
});

describe('errors', () => {
  it('rejects duplicate codes, overlapping histories and unknown ids', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'D1' });
    const dup = await t.call(admin, 'POST', '/api/v1/sucursal/crear', { idEmpresa: company.id, codComercio: 'D1', nombre: 'Otra' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'SUCURSAL_DUPLICADA');
    // The same codComercio in another company is fine.
    const other = await insertCompany(t);
    await createBranch(admin, { idEmpresa: other.id, codComercio: 'D1' });
    const br2 = await createBranch(admin, { idEmpresa: company.id, codComercio: 'D2' });
    const rename = await t.call(admin, 'POST', '/api/v1/sucursal/editar', { idSucursal: br2.id, codComercio: 'D1' });
    assert.equal(rename.status, 409);

    const overlap = await t.call(admin, 'POST', '/api/v1/sucursal/crear', {
      idEmpresa: company.id, codComercio: 'D3', nombre: 'X',
      codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01' }, { codigoDgiSucursal: 2, vigenciaDesde: '2024-06-01' }],
    });
    assert.equal(overlap.status, 400);
    assert.equal(overlap.body.code, 'HISTORIAL_CODIGOS_INVALIDO');
    const badDate = await t.call(admin, 'POST', '/api/v1/sucursal/crear', { idEmpresa: company.id, codComercio: 'D4', nombre: 'X', codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '01/01/2024' }] });
    assert.equal(badDate.status, 400);

    await createPoint(admin, br.id, 'T1');
    const dupPoint = await t.call(admin, 'POST', '/api/v1/puntoemision/crear', { idSucursal: br.id, codTerminal: 'T1' });
    assert.equal(dupPoint.status, 409);
    assert.equal(dupPoint.body.code, 'PUNTO_EMISION_DUPLICADO');

    assert.equal((await t.call(admin, 'GET', '/api/v1/sucursal/999999')).body.code, 'SUCURSAL_NO_ENCONTRADA');
    assert.equal((await t.call(admin, 'GET', '/api/v1/puntoemision/999999')).body.code, 'PUNTO_EMISION_NO_ENCONTRADO');
    assert.equal((await t.call(admin, 'POST', '/api/v1/puntoemision/crear', { idSucursal: 999999, codTerminal: 'X' })).status, 404);
    assert.equal((await t.call(admin, 'GET', `/api/v1/puntoemision/getBySucursalTerminal/${br.id}?codTerm=NOPE`)).status, 404);
    assert.equal((await t.call(admin, 'GET', `/api/v1/puntoemision/sucursal/${br.id}?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await t.call(admin, 'GET', `/api/v1/sucursal/${br.id}/codigoDgi?fecha=2024-13-01`)).status, 400);
  });

  it('fields signed in the Emisor block are held to DGI\'s lengths when saved (issue 28: never cut or XML_INVALIDO later)', async () => {
    const company = await insertCompany(t);
    for (const [field, value] of [['nombre', 'x'.repeat(21)], ['nombre', '  '], ['direccion', 'x'.repeat(71)], ['ciudad', 'x'.repeat(31)], ['telefono', '1'.repeat(21)], ['email', `${'a'.repeat(76)}@b.uy`]] as const) {
      const res = await t.call(admin, 'POST', '/api/v1/sucursal/crear', { idEmpresa: company.id, codComercio: 'LIM', nombre: 'Límite', [field]: value });
      assert.deepEqual([res.status, res.body.campos?.[0]?.campo], [400, field], `${field}: ${JSON.stringify(res.body)}`);
    }
    for (const [field, value] of [['actividad', 'x'.repeat(61)], ['nombreComercial', 'x'.repeat(31)], ['domicilioFiscal', 'x'.repeat(71)]] as const) {
      const res = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: company.id, [field]: value });
      assert.deepEqual([res.status, res.body.campos?.[0]?.campo], [400, field], `${field}: ${JSON.stringify(res.body)}`);
    }
    const ok = await t.call(admin, 'POST', '/api/v1/sucursal/crear', { idEmpresa: company.id, codComercio: 'LIM2', nombre: 'x'.repeat(20), direccion: 'x'.repeat(70) });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
  });

  it('ids beyond the integer column are a 400 on the field, not a database error', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'BIG' });
    for (const [url, body] of [
      ['/api/v1/sucursal/crear', { idEmpresa: 3_000_000_000, codComercio: 'X', nombre: 'X' }],
      ['/api/v1/sucursal/editar', { idSucursal: 3_000_000_000, nombre: 'X' }],
      ['/api/v1/puntoemision/crear', { idSucursal: 3_000_000_000, codTerminal: 'X' }],
      ['/api/v1/puntoemision/editar', { idPuntoEmision: 3_000_000_000, habilitada: false }],
      ['/api/v1/sucursal/editar', { idSucursal: br.id, CodigoCasaDgi: 3_000_000_000 }],
    ] as const) {
      const res = await t.call(admin, 'POST', url, body);
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'VALIDACION');
    }
  });

  it('a branch logo with a PNG/JPEG signature that does not decode is refused', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'LBAD' });
    for (const bad of [PNG_GARBAGE, JPEG_GARBAGE]) {
      const boundary = '----b' + Date.now();
      const payload = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="l.png"\r\nContent-Type: image/png\r\n\r\n`), bad, Buffer.from(`\r\n--${boundary}--\r\n`)]);
      const up = await t.app.inject({ method: 'POST', url: `/api/v1/sucursal/actualizarLogo?idSucursal=${br.id}`, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${admin}` } });
      assert.equal(up.statusCode, 400, up.body);
      assert.equal(up.json().code, 'LOGO_DANADO');
    }
    assert.equal((await t.call(admin, 'GET', `/api/v1/sucursal/${br.id}`)).body.tieneLogo, false);
  });

  it('the resolver names each missing or disabled piece', async () => {
    const company = await insertCompany(t);
    const resolve = (codComercio: string, codTerminal: string, idEmpresa = company.id) =>
      t.modules.services.companies.resolveEmissionPoint({ idEmpresa, codComercio, codTerminal, fecha: '2025-01-01' });
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'R1' });
    await createPoint(admin, br.id, 'T1');
    await createPoint(admin, br.id, 'OFF', false);
    await assert.rejects(resolve('R1', 'T1', 999999), { code: 'EMPRESA_NO_ENCONTRADA' });
    await assert.rejects(resolve('NOPE', 'T1'), { code: 'SUCURSAL_NO_ENCONTRADA' });
    await assert.rejects(resolve('R1', 'NOPE'), { code: 'PUNTO_EMISION_NO_ENCONTRADO' });
    await assert.rejects(resolve('R1', 'OFF'), { code: 'PUNTO_EMISION_DESHABILITADO' });
    await assert.rejects(resolve('R1', 'T1'), { code: 'CODIGO_DGI_NO_DEFINIDO' });
    await t.call(admin, 'POST', '/api/v1/sucursal/editar', { idSucursal: br.id, CodigoCasaDgi: 4 });
    assert.equal((await resolve('R1', 'T1')).codigoDgiSucursal, 4);
    await t.call(admin, 'POST', '/api/v1/sucursal/editar', { idSucursal: br.id, habilitada: false });
    await assert.rejects(resolve('R1', 'T1'), { code: 'SUCURSAL_DESHABILITADA' });
    await t.call(admin, 'POST', `/api/v1/empresa/deshabilitar/${company.id}`);
    await assert.rejects(resolve('R1', 'T1'), { code: 'EMPRESA_DESHABILITADA' });
    await t.call(admin, 'DELETE', `/api/v1/empresa/${company.id}`);
    await assert.rejects(resolve('R1', 'T1'), { code: 'EMPRESA_NO_ENCONTRADA' });
  });
});

describe('access', () => {
  it("another company's branches and points are invisible", async () => {
    const mine = await insertCompany(t);
    const theirs = await insertCompany(t);
    const myBranch = await createBranch(admin, { idEmpresa: mine.id, codComercio: 'M1' });
    const theirBranch = await createBranch(admin, { idEmpresa: theirs.id, codComercio: 'X1', codigosDgi: [{ codigoDgiSucursal: 1, vigenciaDesde: '2024-01-01' }] });
    const theirPoint = await createPoint(admin, theirBranch.id, 'T1');
    await createPoint(admin, myBranch.id, 'T1');
    const boss = await createUser(t, admin, 'jefe@m.uy', [{ idEmpresa: mine.id, rol: 'administrador' }]);
    const clerk = await createUser(t, admin, 'cajero@m.uy', [{ idEmpresa: mine.id, rol: 'emisor' }]);

    for (const [method, url, body] of [
      ['GET', `/api/v1/sucursal/${theirBranch.id}`],
      ['GET', `/api/v1/sucursal/${theirBranch.id}/codigoDgi?fecha=2025-01-01`],
      ['GET', `/api/v1/sucursal/getCodigoComercio?idSucursal=${theirBranch.id}`],
      ['GET', `/api/v1/sucursal/${theirBranch.id}/logo`],
      ['POST', '/api/v1/sucursal/editar', { idSucursal: theirBranch.id, nombre: 'hack' }],
      ['POST', `/api/v1/sucursal/eliminarLogo?idSucursal=${theirBranch.id}`],
      ['GET', `/api/v1/sucursal/todas?idEmpresa=${theirs.id}`],
      ['POST', '/api/v1/sucursal/crear', { idEmpresa: theirs.id, codComercio: 'Z', nombre: 'Z' }],
      ['GET', `/api/v1/puntoemision/${theirPoint.id}`],
      ['GET', `/api/v1/puntoemision/todos?idEmpresa=${theirs.id}`],
      ['GET', `/api/v1/puntoemision/sucursal/${theirBranch.id}`],
      ['GET', `/api/v1/puntoemision/getBySucursalTerminal/${theirBranch.id}?codTerm=T1`],
      ['POST', '/api/v1/puntoemision/crear', { idSucursal: theirBranch.id, codTerminal: 'T2' }],
      ['POST', '/api/v1/puntoemision/editar', { idPuntoEmision: theirPoint.id, habilitada: false }],
    ] as Array<[string, string, unknown?]>) {
      const res = await t.call(boss.token, method, url, body);
      assert.equal(res.status, 404, `${method} ${url} → ${res.status}`);
    }
    const notFoundBranch = await t.call(boss.token, 'GET', `/api/v1/sucursal/${theirBranch.id}`);
    const missing = await t.call(boss.token, 'GET', '/api/v1/sucursal/999999');
    assert.deepEqual({ ...notFoundBranch.body, requestId: '' }, { ...missing.body, requestId: '' });

    const branches = await t.call(boss.token, 'GET', '/api/v1/sucursal/todas');
    assert.deepEqual(branches.body.data.map((b: { id: number }) => b.id), [myBranch.id]);
    const tree = await t.call(boss.token, 'GET', '/api/v1/sucursal/getEmpresasSucursales');
    assert.deepEqual(tree.body.data.map((c: { idEmpresa: number }) => c.idEmpresa), [mine.id]);
    const points = await t.call(boss.token, 'GET', `/api/v1/puntoemision/todos?idEmpresa=${mine.id}`);
    assert.equal(points.body.total, 1);

    // An emisor reads but cannot change the configuration.
    assert.equal((await t.call(clerk.token, 'GET', `/api/v1/sucursal/${myBranch.id}`)).status, 200);
    assert.equal((await t.call(clerk.token, 'POST', '/api/v1/sucursal/crear', { idEmpresa: mine.id, codComercio: 'C', nombre: 'C' })).status, 403);
    assert.equal((await t.call(clerk.token, 'POST', '/api/v1/puntoemision/crear', { idSucursal: myBranch.id, codTerminal: 'T3' })).status, 403);
    assert.equal((await t.call(boss.token, 'POST', '/api/v1/puntoemision/crear', { idSucursal: myBranch.id, codTerminal: 'T3' })).status, 201);
  });
});

describe('documentation and logos', () => {
  it('publishes every Empresa/Sucursal/Punto Emision endpoint of this module in /openapi.json', async () => {
    const res = await t.call(undefined, 'GET', '/openapi.json');
    assert.equal(res.status, 200);
    const paths = res.body.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    for (const [method, path] of [
      ['post', '/api/v1/empresa/crear'], ['get', '/api/v1/empresa/{id}'], ['delete', '/api/v1/empresa/{id}'], ['get', '/api/v1/empresa/parametros'],
      ['get', '/api/v1/empresa/exportarExcel'], ['post', '/api/v1/empresa/habilitarPorRut/{rut}'], ['post', '/api/v1/sucursal/crear'],
      ['get', '/api/v1/sucursal/getEmpresasSucursales'], ['get', '/api/v1/puntoemision/getBySucursalTerminal/{idSucursal}'], ['get', '/api/v1/puntoemision/todos'],
    ]) {
      assert.ok(paths[path]?.[method], `${method} ${path} missing`);
      assert.ok(!paths[path][method].responses['501'], `${method} ${path} is still a stub`);
    }
    const body = (res.body.paths['/api/v1/sucursal/crear'].post.requestBody.content['application/json'].schema);
    assert.equal(body.example?.codComercio, 'CENTRO');
    assert.ok(res.body.paths['/api/v1/puntoemision/{id}'].get.responses['200'].content['application/json'].schema.example);
  });

  it('uploads, serves and removes a branch logo (SVG)', async () => {
    const company = await insertCompany(t);
    const br = await createBranch(admin, { idEmpresa: company.id, codComercio: 'L1' });
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
    const boundary = '----b' + Date.now();
    const payload = Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="l.svg"\r\nContent-Type: image/svg+xml\r\n\r\n`), svg, Buffer.from(`\r\n--${boundary}--\r\n`)]);
    const up = await t.app.inject({ method: 'POST', url: `/api/v1/sucursal/actualizarLogo?idSucursal=${br.id}`, payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, authorization: `Bearer ${admin}` } });
    assert.equal(up.statusCode, 200, up.body);
    assert.deepEqual(up.json(), { idSucursal: br.id, contentType: 'image/svg+xml', bytes: svg.length });
    const got = await t.app.inject({ method: 'GET', url: `/api/v1/sucursal/${br.id}/logo`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(got.headers['content-type'], 'image/svg+xml');
    assert.equal(got.body, svg.toString());
    assert.equal((await t.call(admin, 'GET', `/api/v1/sucursal/${br.id}`)).body.tieneLogo, true);
    assert.equal((await t.call(admin, 'POST', `/api/v1/sucursal/eliminarLogo?idSucursal=${br.id}`)).status, 204);
    assert.equal((await t.call(admin, 'POST', `/api/v1/sucursal/eliminarLogo?idSucursal=${br.id}`)).body.code, 'LOGO_NO_ENCONTRADO');
  });
});
