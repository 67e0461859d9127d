/**
 * `npm run demo`: the whole emission flow through the HTTP API against the in-process DGI simulator.
 * Database: DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR (default
 * `./data-demo`, port EMBEDDED_PG_PORT default 54339, so it never touches the dev database in ./data).
 * Logs in as the first administrator (created as ADMIN_USER / ADMIN_PASSWORD, default
 * admin@localhost.localdomain / demo-password-1, when the database has no user), creates or reuses
 * "Empresa Demo S.A.", its branch DEMO and terminal CAJA1, gets a test certificate and CAE files for
 * the types it issues from the simulated DGI's sandbox (POST /api/v1/sandbox/dgi/*) and imports
 * them, then issues an e-Ticket, an e-Factura, a credit note on it and an export invoice in USD,
 * printing tipo, serie-numero, CAE, security code and QR URL. Then the DGI round trip: one more
 * e-Ticket that the simulator is told to reject (E05), the submission worker (job runner + wake-up,
 * as in the embedded default) sends everything in envelopes, polls the results, and the demo prints
 * each receipt's state and history: signed → accepted, and the forced rejection with its voided
 * number. Re-runnable. The simulated DGI keeps its state under DATA_DIR
 * (dgi-simulator/state.jsonl), so `npm start` on the same DATA_DIR later meets the same DGI: the
 * receipts left unsent here are accepted under the CAE it issued.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { loadPatchedXsdSet } from '../src/platform/xml/xsd.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/platform/logger.js';
import { startProcess } from '../src/bootstrap.js';
import { startJobRunner } from '../src/platform/jobs/runner.js';

const DEMO_RUT = '219999820013';
const DEMO_NAME = 'Empresa Demo S.A.';
const env = { DATA_DIR: './data-demo', EMBEDDED_PG_PORT: '54339', LOG_LEVEL: 'warn', ADMIN_PASSWORD: 'demo-password-1', ...process.env } as Record<string, string>;
const config = loadConfig(env);
const logger = createLogger(config);
const runtime = await startProcess(config, logger, 'demo').catch((err: Error) => {
  console.error(`demo: could not start: ${err.message}`);
  process.exit(1);
});
const { app, modules } = await buildApp({ config, logger, ...runtime });

try {
  await modules.services.users.ensureFirstAdmin(config.auth.adminUser, config.auth.adminPassword);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  console.log(`demo: API on ${base} (database: ${config.db.url ? 'DATABASE_URL' : `embedded under ${config.dataDir}`})`);
  console.log(`demo: log in as ${config.auth.adminUser} / ${config.auth.adminPassword} (POST ${base}/api/auth/login {"usuario","clave"}; API docs at ${base}/docs)`);

  async function api(token: string | undefined, method: string, path: string, body?: unknown) {
    const res = await fetch(base + path, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await res.text();
    let json: any;
    try { json = JSON.parse(text); } catch { json = text; }
    return { status: res.status, body: json };
  }
  const must = (r: { status: number; body: any }, what: string, ok = [200, 201]) => {
    if (!ok.includes(r.status)) throw new Error(`${what}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };

  const login = await api(undefined, 'POST', '/api/auth/login', { usuario: config.auth.adminUser, clave: config.auth.adminPassword });
  const token: string = must(login, `login as ${config.auth.adminUser} (set ADMIN_USER/ADMIN_PASSWORD for an existing database)`).accessToken;

  // Company, branch, terminal: reused when they exist.
  const found = must(await api(token, 'GET', `/api/v1/empresa/todas?rut=${DEMO_RUT}`), 'list companies');
  const company = found.data[0] ?? must(await api(token, 'POST', '/api/v1/empresa/crear', { rut: DEMO_RUT, razonSocial: DEMO_NAME, nombreComercial: 'Demo', domicilioFiscal: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', CodigoCasaDgiPorDefecto: 1 }), 'create company');
  const idEmpresa: number = company.id;
  const branches = must(await api(token, 'GET', `/api/v1/sucursal/todas?idEmpresa=${idEmpresa}&codComercio=DEMO`), 'list branches');
  const branch = branches.data[0] ?? must(await api(token, 'POST', '/api/v1/sucursal/crear', { idEmpresa, codComercio: 'DEMO', nombre: 'Casa Central', direccion: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', CodigoCasaDgi: 1 }), 'create branch');
  const point = await api(token, 'POST', '/api/v1/puntoemision/crear', { idSucursal: branch.id, codTerminal: 'CAJA1', descripcion: 'Caja 1' });
  if (point.status !== 201 && point.status !== 409) must(point, 'create emission point');
  console.log(`demo: company ${idEmpresa} ${company.razonSocial} (RUT ${DEMO_RUT}), branch DEMO, terminal CAJA1 ${found.data[0] ? '(reused)' : '(created)'}`);

  // The simulated DGI's sandbox over HTTP, as any client gets it (README "Your first receipt"): a new test
  // certificate each run (the simulator keeps its CA in DATA_DIR, so earlier ones stay valid too)...
  const sandbox = 'needs DGI_MODE=simulator without DGI_SIMULATOR_URL, outside production';
  const cert = must(await api(token, 'POST', '/api/v1/sandbox/dgi/certificado', { idEmpresa }), `sandbox certificate (${sandbox})`);
  must(await api(token, 'POST', '/api/v1/empresa/importarCertificado', cert), 'import certificate');

  // ...and CAE files for every type the demo issues, only where no number is left.
  const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10); // Uruguay (UTC−3)
  const available = must(await api(token, 'GET', `/api/v1/cae/obtenerDisponibilidad?idEmpresa=${idEmpresa}`), 'CAE availability') as Array<{ tipoCfe: number; numerosDisponibles: number }>;
  for (const tipoCfe of [101, 111, 112, 121]) {
    if (available.some((a) => a.tipoCfe === tipoCfe && a.numerosDisponibles > 0)) continue;
    // A serie whose numbers the simulated DGI has not authorized yet (an earlier one ran out).
    for (let letter = 0; ; letter++) {
      if (letter === 26) throw new Error(`no free serie left for type ${tipoCfe}`);
      const file = await api(token, 'POST', '/api/v1/sandbox/dgi/cae', { idEmpresa, tipoCfe, serie: String.fromCharCode(65 + letter), desde: 1, hasta: 10_000 });
      if (file.body?.code === 'SANDBOX_CAE_SUPERPUESTO') continue;
      must(await api(token, 'POST', '/api/v1/cae/importar', must(file, `sandbox CAE ${tipoCfe}`)), `import CAE ${tipoCfe}`);
      break;
    }
  }

  const emit = async (label: string, cfe: Record<string, unknown>) => {
    const v = must(await api(token, 'POST', '/api/v1/comprobante/emitir', { idEmpresa, codComercio: 'DEMO', codTerminal: 'CAJA1', cfe }), `emit ${label}`);
    console.log(`\n${label}: tipo ${v.tipoCfe} ${v.serie}-${v.numero}  CAE ${v.cae.numero}  código de seguridad ${v.codigoSeguridad}  total ${v.moneda} ${v.totales.MntPagar ?? v.totales.MntTotal}`);
    console.log(`  QR: ${v.urlQr}`);
    issued.push({ id: v.id, label });
    return v;
  };
  const issued: Array<{ id: number; label: string }> = [];
  const yerba = { indicadorFacturacion: 3, nombreItem: 'Yerba 1 kg', cantidad: 2, precioUnitario: '189.90' };
  await emit('e-Ticket', { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [yerba, { indicadorFacturacion: 2, nombreItem: 'Arroz 1 kg', cantidad: 1, precioUnitario: '64.50' }] });
  // 219000090011: a DGI Testing RUT the simulator's RUT service knows; name and address come from it.
  const factura = await emit('e-Factura', { idDoc: { tipoCfe: 111, fechaEmision: today }, receptor: { documento: '219000090011' }, detalles: [{ indicadorFacturacion: 3, nombreItem: 'Servicio de consultoría', cantidad: 10, precioUnitario: '1500.00' }] });
  await emit('Nota de crédito de e-Factura', { idDoc: { tipoCfe: 112, fechaEmision: today }, receptor: { documento: '219000090011' }, referencias: [{ tipoCfe: 111, serie: factura.serie, numero: factura.numero, razon: 'Bonificación' }], detalles: [{ indicadorFacturacion: 3, nombreItem: 'Bonificación consultoría', cantidad: 1, precioUnitario: '1500.00' }] });
  await emit('e-Factura de exportación (USD)', {
    idDoc: { tipoCfe: 121, fechaEmision: today, clauVenta: 'FOB', viaTransp: 1, modVenta: 1 },
    receptor: { documento: 'AR-30712345678', tipoDocumento: 4, codPais: 'AR', razonSocial: 'Importadora del Plata S.A.', direccion: 'Corrientes 1234', ciudad: 'Buenos Aires', departamento: 'CABA', pais: 'Argentina' },
    totales: { tipoMoneda: 'USD', tipoCambio: '39.500' },
    detalles: [{ indicadorFacturacion: 10, nombreItem: 'Lana lavada', cantidad: 500, unidadMedida: 'kg', precioUnitario: '4.20' }],
  });
  const rejected = await emit('e-Ticket que DGI rechazará (simulador: E05)', { idDoc: { tipoCfe: 101, fechaEmision: today }, detalles: [yerba] });

  // DGI round trip. A data directory from before the simulator kept its state (or learned imported
  // ranges) holds CAE ranges this DGI never knew: tell it, and script the rejection.
  const sim = await modules.services.lookups.simulator();
  if (!sim) throw new Error(`The demo ${sandbox} (the in-process simulator).`);
  const ranges = must(await api(token, 'GET', `/api/v1/cae/todos?idEmpresa=${idEmpresa}&length=500`), 'CAE ranges');
  for (const r of ranges.data) sim.control.registerCae({ rucEmisor: DEMO_RUT, tipoCfe: String(r.tipoCfe), serie: r.serie, desde: r.desde, hasta: r.hasta, fechaVencimiento: r.fechaVencimiento, NA: r.numeroCae });
  sim.control.rejectNext({ tipoCFE: 101, serie: rejected.serie, nro: rejected.numero }, ['E05']);
  console.log('\ndemo: starting the DGI submission worker (envelopes → ACKSobre → EFACCONSULTARESTADOENVIO → ACKCFE)');
  const runner = await startJobRunner({ pool: runtime.database.pool, jobs: modules.jobs, cron: [], concurrency: 2, logger });
  await modules.services.dgiSubmissionWaker.start();
  try {
    const finalStates = new Set(['aceptado', 'rechazado', 'observado', 'sobre_rechazado', 'aceptado_manual']);
    const deadline = Date.now() + 60_000;
    let states: any[] = [];
    for (;;) {
      states = await Promise.all(issued.map(async (c) => ({ ...c, ...must(await api(token, 'GET', `/api/v1/cfeemitido/${c.id}/estados`), 'estados') })));
      if (states.every((x) => finalStates.has(x.estado)) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    for (const x of states) {
      console.log(`\n${x.label} (id ${x.id}): ${x.estado}`);
      for (const h of x.historial) {
        const motivos = (h.motivos ?? []).map((m: any) => `${m.codigo} ${m.glosa}`).join('; ');
        console.log(`  ${h.fecha}  ${String(h.estadoAnterior ?? '').padEnd(15)} → ${h.estado.padEnd(15)} ${h.codigo ?? ''} ${motivos || h.mensaje || ''} ${h.referencia ?? ''}`.trimEnd());
      }
    }
    const voided = must(await api(token, 'GET', `/api/v1/sobredgi?idEmpresa=${idEmpresa}&length=5`), 'envelopes');
    console.log(`\nEnvelopes (newest first): ${voided.data.map((e: any) => `Idemisor ${e.idEmisor} ${e.estado} (${e.cantidadCfe} CFE)`).join(', ')}`);
    const events = must(await api(token, 'GET', `/api/v1/eventos?idEmpresa=${idEmpresa}&length=500`), 'events');
    const rechazo = events.data.filter((e: any) => e.type === 'Cfe.RechazadoDgi').at(-1);
    if (rechazo) console.log(`Event ${rechazo.type}: ${JSON.stringify(rechazo.data)}`);

    // Both envelopes and the daily report, written to files and checked with xmllint (when installed).
    const out = path.resolve(config.dataDir, 'demo-output');
    const xsdDir = path.join(out, 'xsd');
    fs.mkdirSync(xsdDir, { recursive: true });
    for (const [name, content] of loadPatchedXsdSet()) fs.writeFileSync(path.join(xsdDir, name), content);
    const xmllint = (file: string, schema: string) => {
      const r = spawnSync('xmllint', ['--noout', '--schema', path.join(xsdDir, schema), file], { encoding: 'utf8' });
      return r.error ? 'xmllint not installed' : (r.stderr || r.stdout).trim().split('\n').at(-1);
    };
    const saveXml = async (what: string, prefix: string, urlPath: string, body: unknown, schema: string) => {
      const res = await fetch(base + urlPath, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await res.text();
      if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text}`);
      const file = path.join(out, prefix + (/filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'sobre.xml'));
      fs.writeFileSync(file, text);
      console.log(`${what}: ${file}  [${xmllint(file, schema)}]`);
    };
    console.log('');
    // The newest envelope the worker sent, downloaded again: a NEW envelope of CFEs DGI already has
    // (or rejected, voiding their numbers) is refused (SOBRE_CFE_YA_EN_DGI, SOBRE_CFE_ANULADO).
    const sent = must(await api(token, 'GET', `/api/v1/sobredgi/${voided.data[0].id}`), 'envelope');
    await saveXml('Envelope to DGI (EnvioCFE)', 'dgi-', '/api/v1/cfeemitido/generarSobreDgi', { idEmpresa, idsCfe: sent.idsCfe }, 'EnvioCFE.xsd');
    await saveXml('Envelope to the receiver (EnvioCFE_entreEmpresas)', 'receptor-', '/api/v1/cfeemitido/generarSobreReceptor', { idEmpresa, idsCfe: [factura.id] }, 'EnvioCFE_entreEmpresas.xsd');
    const yesterday = new Date(Date.now() - 27 * 3600_000).toISOString().slice(0, 10);
    const report = must(await api(token, 'POST', '/api/v1/reportediario/regenerar', { idEmpresa, fecha: yesterday }), 'daily report');
    const full = must(await api(token, 'GET', `/api/v1/reportediario/${report.id}`), 'daily report');
    const reportFile = path.join(out, full.nombreArchivo);
    fs.writeFileSync(reportFile, full.xml);
    console.log(`Daily report of ${yesterday}: secuencia ${full.secEnvio}, ${full.cantComprobantes} comprobantes, estado ${full.estado}, DGI ${full.estadoDgi ?? '-'}: ${reportFile}  [${xmllint(reportFile, 'ReporteDiarioCFE.xsd')}]`);
    console.log(`  (list: GET /api/v1/reportediario?idEmpresa=${idEmpresa}; today's report is generated tomorrow by the daily task)`);
  } finally {
    await modules.services.dgiSubmissionWaker.stop();
    await runner.stop();
  }
  // A few thousand receipts to search, export, chart and print (DEMO_BULK, default 2000; 0 skips).
  const bulk = Number(process.env.DEMO_BULK ?? 2000);
  if (bulk > 0) {
    const started = Date.now();
    const customers = ['219000090011', '219999830019', '211428940011', '210475730011'];
    let next = 0;
    let failed = 0;
    await Promise.all(Array.from({ length: 16 }, async () => {
      for (let i = next++; i < bulk; i = next++) {
        const factura = i % 5 === 0;
        const usd = i % 7 === 0;
        const cfe = {
          idDoc: { tipoCfe: factura ? 111 : 101, fechaEmision: today },
          ...(factura ? { receptor: { documento: customers[i % customers.length] } } : {}),
          ...(usd ? { totales: { tipoMoneda: 'USD', tipoCambio: '39.500' } } : {}),
          detalles: [{ indicadorFacturacion: i % 3 === 0 ? 2 : 3, nombreItem: `Artículo ${1 + (i % 40)}`, cantidad: 1 + (i % 4), precioUnitario: (usd ? 5 + (i % 90) : 50 + ((i * 37) % 4000)).toFixed(2) }],
        };
        const r = await api(token, 'POST', '/api/v1/comprobante/emitir', { idEmpresa, codComercio: 'DEMO', codTerminal: 'CAJA1', cfe });
        if (r.status !== 200) failed++;
      }
    }));
    console.log(`\ndemo: ${bulk - failed} more receipts issued in ${((Date.now() - started) / 1000).toFixed(1)} s (${failed} failed) for search and exports (DEMO_BULK=0 skips)`);
    const facturas = must(await api(token, 'GET', `/api/v1/cfeemitido/buscar?idEmpresa=${idEmpresa}&tipoCfe=111&length=1`), 'search');
    const usd = must(await api(token, 'GET', `/api/v1/cfeemitido/buscar?idEmpresa=${idEmpresa}&moneda=USD&orden=mntTotal&length=1`), 'search');
    console.log(`  GET /api/v1/cfeemitido/buscar?idEmpresa=${idEmpresa}&tipoCfe=111 → ${facturas.total} e-Facturas; &moneda=USD&orden=mntTotal → ${usd.total}, largest ${usd.data[0]?.moneda} ${usd.data[0]?.totales?.mntTotal}`);
    console.log(`  charts: GET /api/v1/cfeemitido/graficaDiaria?idEmpresa=${idEmpresa}, /api/v1/cfeemitido/graficaFacturacionMensual?idEmpresa=${idEmpresa}`);
  }
  console.log('\ndemo: done');
  // The demo's own server stops with it; this is how to look at its data afterwards.
  const port = config.http.port === 0 ? 3000 : config.http.port;
  console.log(`demo: to browse this data, start the service on it: DATA_DIR=${env.DATA_DIR} EMBEDDED_PG_PORT=${config.db.embeddedPort} PORT=${port} npm start`);
  console.log(`      then log in at http://127.0.0.1:${port}/api/auth/login as ${config.auth.adminUser} / ${config.auth.adminPassword} (docs: http://127.0.0.1:${port}/docs)`);
} finally {
  await app.close();
  await runtime.close();
}
process.exit(0);
