/**
 * Local DGI + BCU simulator: one HTTP server on 127.0.0.1 serving the SOAP contracts at paths that
 * mirror DGI's and BCU's, so the real clients talk to it unchanged. Used by tests, the demo and the
 * embedded default environment. Not a security boundary: the test CA key lives in memory and, with
 * `statePath`, in a file beside the rest of the data (simulator/state.ts).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes, X509Certificate } from 'node:crypto';
import { soapFaultXml } from './dgi.soap.ts';
import { BCU_CURRENCIES, BcuService } from './simulator/bcu-service.ts';
import { Decimal } from 'decimal.js';
import type { CaeRange, CfeSummary } from './simulator/cfe-checks.ts';
import { EfacturaService, uyDateTime, type SoapReply } from './simulator/efactura-service.ts';
import { RutService } from './simulator/rut-service.ts';
import { answerConsulta, CONSULTAS_OPERATIONS, type ConsultasOperation } from './simulator/consultas-service.ts';
import { isRegistryOperation, RegistryService } from './simulator/registry-service.ts';
import { CFE_RECIBIDOS_OPERATION, QR_PATH, RecibidosService } from './simulator/recibidos-service.ts';
import { issueTestCertificate, toPkcs12 } from '../../platform/crypto/test-ca.js';
import { builtInTrustAnchors } from '../../platform/crypto/trust-store.js';
import { newIdentity, openSimulatorState, SimulatorStateError, type SimulatorIdentity, type SimulatorRecord } from './simulator/state.ts';
import { caeFileXml, caeNumber } from './simulator/cae-file.ts';
import { submissionLog } from './simulator/submission-log.ts';
import { verifyWsSecurity } from './simulator/wss-verify.ts';

export const SIMULATOR_PATHS = {
  efactura: '/ePrueba/ws_eprueba',
  consultas: '/ePrueba/ws_consultasPrueba',
  rut: '/ePrueba/ws_personaGetActEmpresarialPrueba',
  bcu: '/wscotizaciones/servlet/awsbcucotizaciones',
  /** DGI's public QR page (BRIEF 4), GET. */
  consultaQr: QR_PATH,
} as const;

/**
 * `control.submissions()` keeps the newest SUBMISSIONS_KEPT requests by default (at most twice as many), within
 * SUBMISSION_CHARS_KEPT characters of XML (at most twice as many). Only tests read the log (its newest entries),
 * `npm start` never does: at 32 Mi characters the simulator thread held 32-64 MB of envelopes after a
 * lifecycle run (issue 29 point 5); 8 Mi still keeps the last ~8 envelopes of 250 CFEs.
 */
export const SUBMISSIONS_KEPT = 1000;
export const SUBMISSION_CHARS_KEPT = 8 * 1024 * 1024;

export type { DgiSimulator, DgiSimulatorControl, DgiSimulatorOptions, IssueCaeInput, Submission } from './simulator/types.ts';
import type { DgiSimulator, DgiSimulatorControl, DgiSimulatorOptions, Submission } from './simulator/types.ts';
export type { CaeRange, CfeSummary };

export async function startDgiSimulator(options: DgiSimulatorOptions = {}): Promise<DgiSimulator> {
  const rucDgi = options.rucDgi ?? '219999830019';
  const state = options.statePath
    ? openSimulatorState(options.statePath, () => newIdentity(rucDgi))
    : { identity: newIdentity(rucDgi), replay: () => {}, append: undefined, close: () => {} };
  if (state.identity.rucDgi !== rucDgi) {
    throw new SimulatorStateError(`DGI simulator state file ${options.statePath} belongs to a DGI with RUC ${state.identity.rucDgi}, not ${rucDgi}`);
  }
  const { ca, dgi }: SimulatorIdentity = state.identity;
  const dgiKeys = { privateKeyPem: dgi.keyPem, certificatePem: dgi.certPem };
  const efactura = new EfacturaService(dgiKeys, rucDgi);
  efactura.ackDelayMs = options.ackDelayMs ?? 0;
  efactura.checkCaeRanges = options.checkCaeRanges ?? true;
  efactura.trustAnchors = [...builtInTrustAnchors(), new X509Certificate(ca.certPem), ...(options.trustAnchors ?? []).map((p) => new X509Certificate(p))];
  const rut = new RutService();
  const bcu = new BcuService();
  // Testing's judgement of content and daily reports (content-rules.ts, report-rules.ts).
  efactura.checkContent = options.checkContent ?? true;
  efactura.uiThresholdUyu = new Decimal(5000).times(options.uiValue ?? '6.4');
  efactura.fiscalRate = (moneda, fchEmis) => {
    // BRIEF 9: BCU interbank buyer quote at the close of the day before FchEmis, walking back over holidays.
    const code = Object.entries(BCU_CURRENCIES).find(([, c]) => c.iso === moneda)?.[0];
    if (!code) return null;
    for (let back = 1; back <= 11; back++) {
      const day = new Date(Date.parse(`${fchEmis}T12:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10);
      const rate = bcu.rate(Number(code), day);
      if (rate) return rate;
    }
    return null;
  };
  const registry = new RegistryService(() => efactura.caes, (r) => rut.find(r)?.Denominacion);
  const recibidos = new RecibidosService(efactura);
  const apply = (record: SimulatorRecord) => {
    if (record.t === 'rut') rut.add(record.record);
    else if (record.t === 'rate') bcu.setRate(record.code, record.date, record.rate);
    else if (record.t === 'recibido') recibidos.apply(record);
    else efactura.apply(record);
  };
  state.replay(apply);
  const append = state.append;
  if (append) efactura.journal = append;
  const commit = (record: SimulatorRecord) => {
    append?.(record);
    apply(record);
  };
  const log = submissionLog(Math.max(1, options.keepSubmissions ?? SUBMISSIONS_KEPT), SUBMISSION_CHARS_KEPT);
  let latencyMs = 0;
  let down: false | 'reset' | '503' = false;
  const lostAnswers = new Map<Submission['service'], number>();
  const sockets = new Set<Socket>();

  const handle = (path: string, request: string): { reply: SoapReply; submission: Submission } => {
    const base = { at: uyDateTime(), xmlData: '' };
    if (path === SIMULATOR_PATHS.bcu) {
      const reply = bcu.answer(request);
      return { reply, submission: { ...base, service: 'BCU', xmlData: request, httpStatus: reply.status } };
    }
    const wss = verifyWsSecurity(request);
    if (!wss.ok) {
      const reply = { status: 500, body: soapFaultXml(101, 'Error de Seguridad en la invocación', wss.reason) };
      return { reply, submission: { ...base, service: 'UNKNOWN', xmlData: request, httpStatus: 500, fault: wss.reason } };
    }
    const op = wss.operation;
    const childText = (name: string) => op?.texts.get(name) ?? null;
    if (path === SIMULATOR_PATHS.rut && op?.operation === 'WS_PersonaGetActEmpresarial.Execute') {
      const rutValue = childText('Rut') ?? '';
      const reply = rut.answer(rutValue.trim());
      return { reply, submission: { ...base, service: 'RUT', xmlData: rutValue, httpStatus: reply.status } };
    }
    if (path === SIMULATOR_PATHS.efactura && op) {
      const xmlData = childText('xmlData') ?? '';
      const name = op.operation.replace(/^WS_eFactura\./, '');
      if (name === 'EFACRECEPCIONSOBRE') {
        const { cfeSpans, ...r } = efactura.receiveEnvelope(xmlData, wss.certificate);
        if (r.ackEstado === 'AS') for (const rec of recibidos.fromEnvelope(xmlData, uyDateTime(), cfeSpans)) commit(rec);
        return { reply: r, submission: { ...base, service: name, xmlData, httpStatus: r.status, ackEstado: r.ackEstado, idReceptor: r.idReceptor } };
      }
      if (name === 'EFACCONSULTARESTADOENVIO') {
        const reply = efactura.queryEnvelope(xmlData, wss.certificate);
        return { reply, submission: { ...base, service: name, xmlData, httpStatus: reply.status } };
      }
      if (name === 'EFACRECEPCIONREPORTE') {
        const r = efactura.receiveReport(xmlData, wss.certificate);
        return { reply: r, submission: { ...base, service: name, xmlData, httpStatus: r.status, ackEstado: r.ackEstado } };
      }
    }
    if (path === SIMULATOR_PATHS.consultas && op && isRegistryOperation(op.operation)) return registry.handle(op, base);
    if (path === SIMULATOR_PATHS.consultas && op) {
      const name = op.operation.replace(/^WS_eFactura_Consultas\./, '') as ConsultasOperation;
      if ((name as string) === CFE_RECIBIDOS_OPERATION) {
        const reply = recibidos.answer(op.texts, wss.certificate);
        return { reply, submission: { ...base, service: CFE_RECIBIDOS_OPERATION, xmlData: `${childText('FechaDesde')}..${childText('FechaHasta')}`, httpStatus: reply.status } };
      }
      if (CONSULTAS_OPERATIONS.includes(name)) {
        const cfeid = { TipoCFE: childText('TipoCFE'), Serie: childText('Serie'), Nro: childText('Nro') };
        const reply = answerConsulta(efactura, name, cfeid, wss.certificate);
        return { reply, submission: { ...base, service: name, xmlData: `${cfeid.TipoCFE}-${cfeid.Serie}-${cfeid.Nro}`, httpStatus: reply.status } };
      }
    }
    const reply = { status: 500, body: soapFaultXml(100, 'El método invocado ha detectado una excepción en su ejecución.', 'Operación desconocida') };
    return { reply, submission: { ...base, service: 'UNKNOWN', xmlData: request, httpStatus: 500 } };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const respond = () => {
        if (down === 'reset') return req.socket.destroy();
        if (down === '503') {
          res.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
          return;
        }
        const path = (req.url ?? '').split('?')[0];
        if (req.method === 'GET' && path === SIMULATOR_PATHS.consultaQr) {
          const page = recibidos.qrPage((req.url ?? '').slice(path.length + 1));
          log.record({ service: 'CONSULTAQR', at: uyDateTime(), xmlData: req.url ?? '', httpStatus: page.status });
          res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8' }).end(page.body);
          return;
        }
        if (req.method !== 'POST') {
          res.writeHead(405, { allow: 'POST' }).end();
          return;
        }
        let result: { reply: SoapReply; submission: Submission };
        try {
          result = handle(path, Buffer.concat(chunks).toString('utf8'));
        } catch (error) {
          result = {
            reply: { status: 500, body: soapFaultXml(100, 'El método invocado ha detectado una excepción en su ejecución.', String(error), 'soapenv:Server') },
            submission: { service: 'UNKNOWN', at: uyDateTime(), xmlData: '', httpStatus: 500, fault: String(error) },
          };
        }
        const lose = lostAnswers.get(result.submission.service) ?? 0;
        if (lose > 0) {
          lostAnswers.set(result.submission.service, lose - 1);
          log.record({ ...result.submission, answerLost: true });
          return req.socket.destroy();
        }
        log.record(result.submission);
        res.writeHead(result.reply.status, { 'content-type': 'text/xml; charset=utf-8' }).end(result.reply.body);
      };
      if (latencyMs > 0) setTimeout(respond, latencyMs);
      else respond();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${address}:${port}`;

  const control: DgiSimulatorControl = {
    rejectNext: (match, codes) => void efactura.rejectRules.push({ match, codes }),
    rejectNextEnvelope: (codes) => void efactura.envelopeRejects.push(codes),
    observe: (listener) => log.observe(listener),
    setLatency: (ms) => void (latencyMs = ms),
    setDown: (value) => void (down = value === true ? 'reset' : value),
    setDuplicateAsFault: (on) => void (efactura.duplicateAsFault = on),
    loseNextAnswers: (service, count = 1) => void lostAnswers.set(service, (lostAnswers.get(service) ?? 0) + count),
    setAckDelay: (ms) => void (efactura.ackDelayMs = ms),
    submissions: () => log.list(),
    addRut: (info) => commit({ t: 'rut', record: info }),
    setRate: (code, date, rate) => commit({ t: 'rate', code, date, rate }),
    issueCae: (input) => {
      const NA = caeNumber(efactura.caes.length + 1);
      const range: CaeRange = { ...input, tipoCfe: String(input.tipoCfe), NA, autorizadoEn: uyDateTime() };
      efactura.commit({ t: 'cae', range });
      return { xml: caeFileXml(range, dgiKeys), NA };
    },
    registerCae: (range) => {
      const same = (c: CaeRange) => c.NA === range.NA && c.rucEmisor === range.rucEmisor && c.tipoCfe === String(range.tipoCfe) && c.serie === range.serie && c.desde === range.desde && c.hasta === range.hasta;
      if (efactura.caes.some(same)) return false;
      efactura.commit({ t: 'cae', range: { ...range, tipoCfe: String(range.tipoCfe) } });
      return true;
    },
    caes: () => efactura.caes.map((range) => ({ ...range })),
    addCfeRecibido: (cfe) => commit({ t: 'recibido', cfe }),
    issueCompanyCertificate: (rutValue, name) => {
      const issued = issueTestCertificate(ca, { rut: rutValue, name });
      const password = randomBytes(9).toString('base64url');
      return { privateKeyPem: issued.keyPem, certificatePem: issued.certPem, p12: toPkcs12(issued.keyPem, issued.certPem, password, [ca.certPem]), password };
    },
    caCertificatePem: ca.certPem,
    dgiCertificatePem: dgiKeys.certificatePem,
    registry,
  };

  return {
    url,
    urls: {
      efactura: url + SIMULATOR_PATHS.efactura,
      consultas: url + SIMULATOR_PATHS.consultas,
      rut: url + SIMULATOR_PATHS.rut,
      bcu: url + SIMULATOR_PATHS.bcu,
      consultaQr: url + SIMULATOR_PATHS.consultaQr,
    },
    control,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          state.close();
          resolve();
        });
      }),
  };
}
