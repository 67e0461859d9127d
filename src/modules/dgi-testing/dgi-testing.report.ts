/**
 * The testing set's report (issue 47): counts per type and DGI verdict, every rejection with DGI's
 * code and the receipt, the daily report's state, whether DGI's requirement is met (BRIEF 13: ≥ 50
 * "Recibido" of each of 101, 102, 103, 111, 112, 113 signed the same day, plus that day's report
 * processed), and the declarations the company makes when applying, with what this service does for
 * each. Pure; also renders the report as the lines the command prints.
 */
import { TESTING_TYPES } from './dgi-testing.set.js';

export const REQUIRED_PER_TYPE = 50;

/** BRIEF 13 [V: INGR v18]: the declarations of the application, and how the service answers each. */
export const DECLARACIONES: ReadonlyArray<{ declaracion: string; servicio: string }> = [
  { declaracion: 'Custodia de las constancias de autorización (CAE)', servicio: 'Los CAE se importan firmados por DGI (firma verificada contra la CA de DGI) y se guardan en la base de datos con su XML; se listan y descargan por la API (cae).' },
  { declaracion: 'Numeración única de los comprobantes', servicio: 'Cada número se reserva en una transacción con bloqueo del rango (tipo, serie); un número nunca se reutiliza y los rechazados por DGI quedan anulados e informados en el reporte diario.' },
  { declaracion: 'Publicación de los e-Tickets en el sitio web del emisor', servicio: 'Página pública de consulta por empresa para el comprador (tipo, serie, número, fecha y código de seguridad → PDF y XML firmado), impresa en la representación del comprobante (issue 47 punto 3).' },
  { declaracion: 'Intercambio de CFE con otros emisores electrónicos', servicio: 'Envío EnvioCFE_entreEmpresas por correo (o servicio web de intercambio), recepción de CFE de proveedores y respuestas ACKSobre/ACKCFE firmadas (receiver-exchange, received-cfe).' },
  { declaracion: 'Cierre del ciclo de cada sobre (recibido o rechazado)', servicio: 'Cada sobre se sigue hasta el ACKCFE de DGI; sin respuesta se consulta ws_consultas; cada CFE queda aceptado, rechazado (número anulado) u observado, con historial (dgi-submission).' },
  { declaracion: 'Gestión de contingencia', servicio: 'Rangos de CFC (tipo 2xx) registrados, transcripción de los comprobantes en papel y envío a DGI al terminar la contingencia; informados en los bloques _Cont del reporte diario.' },
  { declaracion: 'No emitir CFE que no cumplan el formato', servicio: 'Cada CFE se valida contra el XSD de DGI y las reglas del Formato (receptor por tipo, totales, referencias) antes de numerarlo y firmarlo; lo que no cumple se rechaza con un error 4xx y no consume número.' },
  { declaracion: 'Reporte diario de todos los CFE utilizados', servicio: 'Se genera y envía cada día el reporte del día anterior (también en cero) y se sigue hasta la respuesta de DGI; se corrige con SecEnvio + 1 (daily-report).' },
];

export interface Verdict {
  tipoCfe: number;
  serie: string;
  numero: number;
  estado: string;
  codigo: string | null;
  mensaje: string | null;
}

export interface DailyReportOutcome {
  id: number;
  fecha: string;
  secEnvio: number;
  estado: string;
  ackEstado: string | null;
  motivos: Array<{ codigo: string; glosa?: string | null; detalle?: string | null }>;
}

export interface TestingReport {
  empresa: { id: number; rut: string; razonSocial: string };
  destino: 'simulador' | 'dgi_testing';
  fecha: string;
  cantidadPorTipo: number;
  /** tipo → estado → cantidad */
  porTipo: Record<string, Record<string, number>>;
  rechazos: Verdict[];
  reporteDiario: DailyReportOutcome | null;
  /** Every type reached ≥ 50 received by DGI and the daily report was processed (AR). */
  requisitosCumplidos: boolean;
  faltantes: string[];
  declaraciones: typeof DECLARACIONES;
}

const RECEIVED = new Set(['aceptado']);

export function buildReport(base: Omit<TestingReport, 'porTipo' | 'rechazos' | 'requisitosCumplidos' | 'faltantes' | 'declaraciones'>, verdicts: Verdict[]): TestingReport {
  const porTipo: TestingReport['porTipo'] = Object.fromEntries(TESTING_TYPES.map((t) => [String(t), {}]));
  for (const v of verdicts) {
    const counts = (porTipo[String(v.tipoCfe)] ??= {});
    counts[v.estado] = (counts[v.estado] ?? 0) + 1;
  }
  const faltantes: string[] = [];
  for (const t of TESTING_TYPES) {
    const received = Object.entries(porTipo[String(t)]).filter(([e]) => RECEIVED.has(e)).reduce((a, [, n]) => a + n, 0);
    if (received < REQUIRED_PER_TYPE) faltantes.push(`Tipo ${t}: ${received} recibidos por DGI, se requieren ${REQUIRED_PER_TYPE}.`);
  }
  if (base.reporteDiario?.ackEstado !== 'AR') faltantes.push(`Reporte diario del ${base.fecha}: ${base.reporteDiario ? `${base.reporteDiario.estado} (${base.reporteDiario.ackEstado ?? 'sin respuesta'})` : 'no enviado'}; se requiere "Reporte Procesado".`);
  return {
    ...base,
    porTipo,
    rechazos: verdicts.filter((v) => !RECEIVED.has(v.estado)),
    requisitosCumplidos: faltantes.length === 0,
    faltantes,
    declaraciones: DECLARACIONES,
  };
}

/** The report as the command prints it. */
export function renderReport(r: TestingReport): string {
  const out: string[] = [];
  out.push(`Prueba de Testing DGI — ${r.empresa.razonSocial} (RUT ${r.empresa.rut}) — ${r.fecha} — destino: ${r.destino}`);
  out.push('Comprobantes por tipo y veredicto de DGI:');
  for (const [tipo, counts] of Object.entries(r.porTipo)) {
    out.push(`  ${tipo}: ${Object.entries(counts).map(([e, n]) => `${e} ${n}`).join(', ') || 'ninguno'}`);
  }
  out.push(r.rechazos.length ? `Rechazos y pendientes (${r.rechazos.length}):` : 'Rechazos: ninguno.');
  for (const v of r.rechazos) out.push(`  ${v.tipoCfe} ${v.serie}-${v.numero}: ${v.estado}${v.codigo ? ` ${v.codigo}` : ''}${v.mensaje ? ` — ${v.mensaje}` : ''}`);
  const d = r.reporteDiario;
  out.push(d ? `Reporte diario ${d.fecha} (SecEnvio ${d.secEnvio}): ${d.estado}, respuesta DGI ${d.ackEstado ?? '—'}${d.ackEstado === 'AR' ? ' (Reporte Procesado)' : ''}${d.motivos.length ? ` — ${d.motivos.map((m) => `${m.codigo} ${m.detalle ?? m.glosa ?? ''}`.trim()).join('; ')}` : ''}` : 'Reporte diario: no enviado.');
  out.push(r.requisitosCumplidos ? 'Requisitos de la Prueba de Testing: CUMPLIDOS.' : `Requisitos de la Prueba de Testing: NO cumplidos.\n  ${r.faltantes.join('\n  ')}`);
  out.push('Declaraciones que la empresa debe realizar (BRIEF 13) y qué hace el servicio:');
  for (const x of r.declaraciones) out.push(`  - ${x.declaracion}: ${x.servicio}`);
  return out.join('\n');
}
