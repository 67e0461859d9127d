/**
 * The typed TypeScript client (clients/typescript): its generated types are those of the current
 * OpenAPI document, it and its example type-check against them, and it works against the real
 * service listening on a port: the example issues a first receipt; a revoked session is reopened
 * and the request repeated once; errors arrive typed; paging reads every page.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { generatedSchema } from '../../scripts/client-generate.js';
import { ApiError, createCfeClient, paginate } from '../../clients/typescript/src/index.js';
import { createTestApp, type TestApp } from '../support/app.js';
import { createUser } from '../support/factories.js';
import { setUpDgiIssuer, today } from '../../src/modules/dgi-submission/dgi-submission.test-helpers.js';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const client = path.join(root, 'clients', 'typescript');
let t: TestApp;
let baseUrl: string;
let company: { id: number; rut: string };
const user = { usuario: 'integradora@test.uy', clave: 'clave-integradora-1' };

before(async () => {
  t = await createTestApp();
  const admin = await t.adminToken();
  ({ company } = await setUpDgiIssuer(t, admin));
  await createUser(t, admin, user.usuario, [{ idEmpresa: company.id, rol: 'administrador' }], user.clave);
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
after(async () => t?.close());

describe('happy path', () => {
  it('the committed schema.d.ts is what the current OpenAPI document gives (npm run client:generate)', async () => {
    const committed = fs.readFileSync(path.join(client, 'src', 'schema.d.ts'), 'utf8');
    assert.ok(committed === (await generatedSchema()), 'clients/typescript/src/schema.d.ts is out of date: run `npm run client:generate`');
  });

  it('the client and its example type-check against the generated types (TypeScript 5, as integrators use it)', () => {
    const tsc = path.join(client, 'node_modules', '.bin', 'tsc');
    const r = spawnSync(tsc, ['-p', 'tsconfig.examples.json'], { cwd: client, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });

  it('the example issues a first receipt against the service', async () => {
    // Asynchronously: the service answering it runs in this very process.
    const { stdout: out } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(client, 'examples', 'first-receipt.ts')], {
      cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, CFE_API_URL: baseUrl, CFE_USUARIO: user.usuario, CFE_CLAVE: user.clave },
    });
    assert.match(out, /emitido: 101 [A-Z]+-\d+, total 463\.36, código de seguridad \S{6}/);
    assert.match(out, /estado: \w+/);
    assert.match(out, /comprobantes de la empresa: [1-9]/);
  });

  it('a revoked session is reopened and the request repeated once; the same Idempotency-Key answers the same receipt', async () => {
    const c = createCfeClient({ baseUrl, ...user });
    assert.equal(await c.selectCompany(), company.id);
    const body = { codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101 as const, fechaEmision: today }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Mate', cantidad: 1, precioUnitario: '50' }] } };
    const first = await c.emitir(body as Parameters<typeof c.emitir>[0], { idempotencyKey: 'venta-42' });
    const revoked = await c.api.POST('/api/v1/auth/revoke-all-tokens', {});
    assert.ok(revoked.response.ok, `${revoked.response.status} ${JSON.stringify(revoked.error)}`);
    const again = await c.emitir(body as Parameters<typeof c.emitir>[0], { idempotencyKey: 'venta-42' });
    assert.equal(again.id, first.id);
  });

  it('errors are ApiError with status, code and campos; paginate reads every page', async () => {
    const c = createCfeClient({ baseUrl, ...user, idEmpresa: company.id });
    await assert.rejects(c.emitir({ codComercio: 'C1', codTerminal: 'T1', cfe: { idDoc: { tipoCfe: 101, fechaEmision: 'ayer' }, detalles: [] } } as unknown as Parameters<typeof c.emitir>[0]), (err: unknown) => {
      assert.ok(err instanceof ApiError);
      assert.equal(err.status, 400);
      assert.equal(err.code, 'VALIDACION');
      assert.ok(err.campos?.some((f) => f.campo === 'cfe.idDoc.fechaEmision'), JSON.stringify(err.campos));
      return true;
    });
    const total = (await c.api.GET('/api/v1/cfeemitido/buscar', { params: { query: { idEmpresa: company.id, length: 1 } } })).data!.total;
    let seen = 0;
    for await (const row of paginate((start, length) => c.api.GET('/api/v1/cfeemitido/buscar', { params: { query: { idEmpresa: company.id, start, length } } }), 1)) seen += row ? 1 : 0;
    assert.ok(total >= 2);
    assert.equal(seen, total);
  });
});
