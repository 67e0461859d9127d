import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import ExcelJS from 'exceljs';
import { createRequire } from 'node:module';
import { createTestApp, type TestApp } from '../../../test/support/app.js';
import { createUser, insertCompany, validRut } from '../../../test/support/factories.js';
import { JPEG, JPEG_GARBAGE, PNG_GARBAGE, pngWithCorruptPixels } from '../documents/raster-image.fixtures.js';

// pngjs is a CommonJS test-only helper without ESM typings.
type Png = { data: Buffer; width: number; height: number };
const { PNG: PngImage } = createRequire(import.meta.url)('pngjs') as { PNG: { sync: { write(png: Png): Buffer } } & (new (o: { width: number; height: number }) => Png) };
const logoImage = new PngImage({ width: 40, height: 20 });
logoImage.data.fill(120);
const PNG = PngImage.sync.write(logoImage);

function multipart(file: Buffer, filename = 'logo.png') {
  const boundary = '----test' + Math.random().toString(16).slice(2);
  const payload = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="logo"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { payload, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

let t: TestApp;
let admin: string;

before(async () => {
  t = await createTestApp();
  admin = await t.adminToken();
});
after(() => t.close());

describe('happy path', () => {
  it('creates, gets, edits, lists and reads parameters of a company', async () => {
    const rut = validRut();
    const created = await t.call(admin, 'POST', '/api/v1/empresa/crear', {
      rut, razonSocial: 'Ejemplo S.A.', nombreComercial: 'Ejemplo', ciudad: 'Montevideo', departamento: 'Montevideo',
      CodigoCasaDgiPorDefecto: 1, regimenTributario: 'iva_minimo', limiteCfeMensual: 1000, numeroResolucion: '123/2024', fechaResolucion: '2024-05-02',
      urlVerificacion: 'https://www.efactura.dgi.gub.uy/', configuracion: { leyendaAdicional: 'Gracias' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.rut, rut);
    assert.equal(created.body.habilitada, true);
    const id = created.body.id;

    const got = await t.call(admin, 'GET', `/api/v1/empresa/${id}`);
    assert.equal(got.status, 200);
    assert.equal(got.body.razonSocial, 'Ejemplo S.A.');

    const edited = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: id, telefono: '29001234', nombreComercial: null });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    assert.equal(edited.body.telefono, '29001234');
    assert.equal(edited.body.nombreComercial, null);

    const params = await t.call(admin, 'GET', `/api/v1/empresa/parametros?idEmpresa=${id}`);
    assert.equal(params.status, 200, JSON.stringify(params.body));
    assert.deepEqual(params.body, {
      idEmpresa: id, ambienteDgi: 'testing', CodigoCasaDgiPorDefecto: 1, regimenTributario: 'iva_minimo', urlVerificacion: 'https://www.efactura.dgi.gub.uy/',
      limiteCfeMensual: 1000, numeroResolucion: '123/2024', fechaResolucion: '2024-05-02', configuracion: { leyendaAdicional: 'Gracias' },
    });

    const list = await t.call(admin, 'GET', `/api/v1/empresa/todas?nombre=ejemplo&length=10`);
    assert.equal(list.status, 200);
    assert.equal(list.body.total, 1);
    assert.equal(list.body.data[0].id, id);
    const byRut = await t.call(admin, 'GET', `/api/v1/empresa/todas?rut=${rut.slice(0, 10)}`);
    assert.ok(byRut.body.data.some((c: { id: number }) => c.id === id));
  });

  it('pages the list with start/length and filters by habilitada', async () => {
    for (let i = 0; i < 5; i++) await insertCompany(t, { razonSocial: `Paginada ${i}` });
    const p1 = await t.call(admin, 'GET', '/api/v1/empresa/todas?nombre=Paginada&start=0&length=2');
    const p3 = await t.call(admin, 'GET', '/api/v1/empresa/todas?nombre=Paginada&start=4&length=2');
    assert.equal(p1.body.total, 5);
    assert.deepEqual(p1.body.data.map((c: { razonSocial: string }) => c.razonSocial), ['Paginada 0', 'Paginada 1']);
    assert.deepEqual(p3.body.data.map((c: { razonSocial: string }) => c.razonSocial), ['Paginada 4']);
    assert.equal(p1.body.start, 0);
    assert.equal(p1.body.length, 2);
    const off = await t.call(admin, 'GET', '/api/v1/empresa/todas?nombre=Paginada&habilitada=0');
    assert.equal(off.body.total, 0);
    const bad = await t.call(admin, 'GET', '/api/v1/empresa/todas?length=501');
    assert.equal(bad.status, 400);
  });

  it('enables and disables by id and by RUT', async () => {
    const c = await insertCompany(t);
    const off = await t.call(admin, 'POST', `/api/v1/empresa/deshabilitar/${c.id}`);
    assert.equal(off.status, 200);
    assert.equal(off.body.habilitada, false);
    const on = await t.call(admin, 'POST', `/api/v1/empresa/habilitarPorRut/${c.rut}`);
    assert.equal(on.status, 200);
    assert.equal(on.body.habilitada, true);
    const off2 = await t.call(admin, 'POST', `/api/v1/empresa/deshabilitarPorRut/${c.rut}`);
    assert.equal(off2.body.habilitada, false);
    const on2 = await t.call(admin, 'POST', `/api/v1/empresa/habilitar/${c.id}`);
    assert.equal(on2.body.habilitada, true);
  });

  it('soft-deletes: the company disappears but its RUT can be registered again', async () => {
    const c = await insertCompany(t);
    const del = await t.call(admin, 'DELETE', `/api/v1/empresa/${c.id}`);
    assert.equal(del.status, 204);
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/${c.id}`)).status, 404);
    const again = await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: c.rut, razonSocial: 'Nueva' });
    assert.equal(again.status, 201);
  });

  it('uploads, serves and removes a logo', async () => {
    const c = await insertCompany(t);
    const { payload, headers } = multipart(PNG);
    const up = await t.app.inject({ method: 'POST', url: `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, payload, headers: { ...headers, authorization: `Bearer ${admin}` } });
    assert.equal(up.statusCode, 200, up.body);
    assert.equal(up.json().contentType, 'image/png');
    const got = await t.app.inject({ method: 'GET', url: `/api/v1/empresa/${c.id}/logo`, headers: { authorization: `Bearer ${admin}` } });
    assert.equal(got.statusCode, 200);
    assert.equal(got.headers['content-type'], 'image/png');
    assert.deepEqual(got.rawPayload, PNG);
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/${c.id}`)).body.tieneLogo, true);
    assert.equal((await t.call(admin, 'POST', `/api/v1/empresa/eliminarLogo?idEmpresa=${c.id}`)).status, 204);
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/${c.id}/logo`)).status, 404);
    const jpeg = multipart(JPEG, 'logo.jpg');
    const upJpeg = await t.app.inject({ method: 'POST', url: `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, payload: jpeg.payload, headers: { ...jpeg.headers, authorization: `Bearer ${admin}` } });
    assert.equal(upJpeg.statusCode, 200, upJpeg.body);
    assert.equal(upJpeg.json().contentType, 'image/jpeg');
  });

  it('editar merges configuracion per key; null removes a key', async () => {
    const c = await insertCompany(t);
    const set = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, configuracion: { leyendaAdicional: 'Gracias', emailCopiaCfe: 'copias@empresa.uy' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const settings = async () => (await t.call(admin, 'GET', `/api/v1/empresa/parametros?idEmpresa=${c.id}`)).body.configuracion;
    await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, configuracion: { leyendaAdicional: 'nueva' } });
    assert.deepEqual(await settings(), { leyendaAdicional: 'nueva', emailCopiaCfe: 'copias@empresa.uy' });
    await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, telefono: '29001234' });
    assert.deepEqual(await settings(), { leyendaAdicional: 'nueva', emailCopiaCfe: 'copias@empresa.uy' });
    const cleared = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, configuracion: { emailCopiaCfe: null } });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.deepEqual(await settings(), { leyendaAdicional: 'nueva' });
  });

  it('exports a real .xlsx with the list filters', async () => {
    await insertCompany(t, { razonSocial: 'Exportable Uno' });
    await insertCompany(t, { razonSocial: 'Exportable Dos' });
    const res = await t.app.inject({ method: 'GET', url: '/api/v1/empresa/exportarExcel?nombre=Exportable', headers: { authorization: `Bearer ${admin}` } });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /spreadsheetml/);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    const sheet = wb.getWorksheet('Empresas')!;
    assert.equal(sheet.getRow(1).getCell(2).value, 'RUT');
    const names = [2, 3].map((r) => sheet.getRow(r).getCell(3).value);
    assert.deepEqual(names, ['Exportable Dos', 'Exportable Uno']);
    assert.equal(sheet.rowCount, 3);
  });
});

describe('errors', () => {
  it('rejects an invalid RUT with a clear 400', async () => {
    const res = await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: '219999830018', razonSocial: 'Mala' });
    assert.equal(res.status, 400);
    assert.equal(res.body.code, 'RUT_INVALIDO');
    assert.match(res.body.error, /dígito verificador/);
    const short = await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: '1234', razonSocial: 'Mala' });
    assert.equal(short.body.code, 'RUT_INVALIDO');
    assert.match(short.body.error, /12 dígitos/);
    const byRut = await t.call(admin, 'POST', '/api/v1/empresa/habilitarPorRut/123');
    assert.equal(byRut.status, 400);
  });

  it('rejects a duplicate RUT, bad fields, unknown ids and bad logos', async () => {
    const c = await insertCompany(t);
    const dup = await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: c.rut, razonSocial: 'Otra' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'EMPRESA_DUPLICADA');
    const badDate = await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: validRut(), razonSocial: 'X', fechaResolucion: '2024-02-30' });
    assert.equal(badDate.status, 400);
    const badSettings = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, configuracion: { desconocido: 1 } });
    assert.equal(badSettings.status, 400);
    assert.equal((await t.call(admin, 'GET', '/api/v1/empresa/999999')).status, 404);
    assert.equal((await t.call(admin, 'GET', '/api/v1/empresa/abc')).status, 400);
    const { payload, headers } = multipart(Buffer.from('GIF89a not really'));
    const up = await t.app.inject({ method: 'POST', url: `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, payload, headers: { ...headers, authorization: `Bearer ${admin}` } });
    assert.equal(up.statusCode, 400);
    assert.equal(up.json().code, 'LOGO_INVALIDO');
    const big = multipart(Buffer.concat([PNG, Buffer.alloc(600 * 1024)]));
    const upBig = await t.app.inject({ method: 'POST', url: `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, payload: big.payload, headers: { ...big.headers, authorization: `Bearer ${admin}` } });
    assert.equal(upBig.statusCode, 413);
    const json = await t.call(admin, 'POST', `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, { x: 1 });
    assert.equal(json.status, 415);
  });

  it('a logo with the right signature that does not decode is refused (it would break every PDF)', async () => {
    const c = await insertCompany(t);
    for (const bad of [PNG_GARBAGE, JPEG_GARBAGE, pngWithCorruptPixels(), PNG.subarray(0, PNG.length - 16)]) {
      const { payload, headers } = multipart(bad);
      const up = await t.app.inject({ method: 'POST', url: `/api/v1/empresa/actualizarLogo?idEmpresa=${c.id}`, payload, headers: { ...headers, authorization: `Bearer ${admin}` } });
      assert.equal(up.statusCode, 400, up.body);
      assert.equal(up.json().code, 'LOGO_DANADO');
      assert.match(up.json().error, /no se puede decodificar/);
    }
    assert.equal((await t.call(admin, 'GET', `/api/v1/empresa/${c.id}`)).body.tieneLogo, false);
  });

  it('editar refuses fields it does not change (rut, habilitada, unknown) and out-of-range numbers', async () => {
    const c = await insertCompany(t);
    for (const extra of [{ rut: validRut() }, { habilitada: false }, { razon_social: 'x' }, { configuracion: { otro: 'x' } }]) {
      const res = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, ...extra });
      assert.equal(res.status, 400, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`);
      // A field the operation does not define (issue 28 point 1), named by its path.
      assert.equal(res.body.code, 'CAMPO_DESCONOCIDO');
      assert.ok(res.body.campos.some((f: { campo: string }) => ['rut', 'habilitada', 'razon_social', 'configuracion.otro'].includes(f.campo)), JSON.stringify(res.body));
    }
    const got = await t.call(admin, 'GET', `/api/v1/empresa/${c.id}`);
    assert.equal(got.body.rut, c.rut);
    assert.equal(got.body.habilitada, true);
    const limit = await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: c.id, limiteCfeMensual: 3_000_000_000 });
    assert.equal(limit.status, 400, JSON.stringify(limit.body));
    assert.match(JSON.stringify(limit.body), /limiteCfeMensual/);
    assert.equal((await t.call(admin, 'POST', '/api/v1/empresa/editar', { idEmpresa: 3_000_000_000, ciudad: 'x' })).status, 400);
    assert.equal((await t.call(admin, 'POST', '/api/v1/empresa/crear', { rut: validRut(), razonSocial: 'X', limiteCfeMensual: 3_000_000_000 })).status, 400);
  });
});

describe('access', () => {
  it('a company user sees only their company; non-operators cannot create or set limits', async () => {
    const mine = await insertCompany(t, { razonSocial: 'Mía S.A.' });
    const other = await insertCompany(t, { razonSocial: 'Ajena S.A.' });
    const boss = await createUser(t, admin, 'jefe@mia.uy', [{ idEmpresa: mine.id, rol: 'administrador' }]);
    const reader = await createUser(t, admin, 'lector@mia.uy', [{ idEmpresa: mine.id, rol: 'lectura' }]);

    const list = await t.call(boss.token, 'GET', '/api/v1/empresa/todas');
    assert.deepEqual(list.body.data.map((c: { id: number }) => c.id), [mine.id]);
    assert.equal(list.body.total, 1);
    assert.equal((await t.call(boss.token, 'GET', `/api/v1/empresa/${other.id}`)).status, 404);
    assert.equal((await t.call(boss.token, 'GET', `/api/v1/empresa/parametros?idEmpresa=${other.id}`)).status, 404);
    assert.equal((await t.call(boss.token, 'POST', `/api/v1/empresa/deshabilitarPorRut/${other.rut}`)).status, 404);
    assert.equal((await t.call(boss.token, 'DELETE', `/api/v1/empresa/${other.id}`)).status, 404);
    assert.equal((await t.call(boss.token, 'GET', `/api/v1/empresa/${other.id}/logo`)).status, 404);

    const create = await t.call(boss.token, 'POST', '/api/v1/empresa/crear', { rut: validRut(), razonSocial: 'Nueva' });
    assert.equal(create.status, 403);
    const limit = await t.call(boss.token, 'POST', '/api/v1/empresa/editar', { idEmpresa: mine.id, limiteCfeMensual: 5 });
    assert.equal(limit.status, 403);
    const edit = await t.call(boss.token, 'POST', '/api/v1/empresa/editar', { idEmpresa: mine.id, ciudad: 'Salto' });
    assert.equal(edit.status, 200);
    assert.equal((await t.call(reader.token, 'POST', '/api/v1/empresa/editar', { idEmpresa: mine.id, ciudad: 'Rivera' })).status, 403);
    assert.equal((await t.call(reader.token, 'POST', `/api/v1/empresa/deshabilitar/${mine.id}`)).status, 403);

    const xlsx = await t.app.inject({ method: 'GET', url: '/api/v1/empresa/exportarExcel', headers: { authorization: `Bearer ${boss.token}` } });
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(xlsx.rawPayload as unknown as ArrayBuffer);
    assert.equal(wb.getWorksheet('Empresas')!.rowCount, 2);
  });
});
