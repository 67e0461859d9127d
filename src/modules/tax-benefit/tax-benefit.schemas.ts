import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { positiveInt4 } from '../../platform/http/numbers.js';
import { pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { GROUNDS, INVESTMENT_TYPES, REGIMES } from './tax-benefit.rules.js';

const amount = z.string().regex(/^\d{1,13}(\.\d{1,2})?$/, 'importe como texto decimal, hasta 2 decimales');
const regimen = z.enum(REGIMES).describe('`decreto_206_019`: monthly credit of up to 80 UI on what the company pays for e-invoicing services (small taxpayers). `decreto_324_011`: IRAE exemption of the initial investment in e-invoicing (BRIEF 12).');
const fundamento = z.enum(GROUNDS).describe('Decreto 206/019 only, the qualifying ground: `literal_e` (the company is in the IVA mínimo regime, literal E), `ingresos_hasta_750000_ui` (prior-year income at most 750,000 UI), `inicio_actividad` (the company starts its activity).');

const investment = z.object({
  descripcion: z.string().trim().min(1).max(200).describe('What was bought.'),
  tipo: z.enum(INVESTMENT_TYPES).describe('`hardware`, `software` (licences, development) or `saas` (an e-invoicing service, counted since 17/10/2015 up to USD 3,000, or 8,000 for CEDE and large taxpayers, without VAT).'),
  fecha: calendarDate.describe('Invoice date. Must fall between 12 months before and 4 months after the start as an electronic issuer.'),
  moneda: z.enum(['UYU', 'USD']).describe('Currency of the amount. UYU `saas` amounts are converted at BCU\'s dollar quote of `fecha` for the cap.'),
  montoSinIva: amount.describe('Amount without VAT, decimal string.'),
});

export const declarationBody = z.object({
  idEmpresa: positiveInt4.describe('Company that declares.'),
  anioFiscal: z.number().int().min(2011).max(2100).describe('Fiscal (calendar) year the declaration is for. Up to next year.'),
  regimen,
  fundamento: fundamento.optional(),
  ingresosAnioAnterior: amount.optional().describe('Decreto 206/019 with `ingresos_hasta_750000_ui`: income of the year before `anioFiscal`, in pesos. Converted at BCU\'s UI value of 31/12 of that year; more than 750,000 UI → 422 BENEFICIO_206_INGRESOS_SUPERAN_TOPE.'),
  fechaInicioActividad: calendarDate.optional().describe('Decreto 206/019 with `inicio_actividad`: start of activity; must fall in `anioFiscal` or the year before. Default: the start as an electronic issuer (see fecha-inicio).'),
  fechaInicioEmisor: calendarDate.optional().describe('Decreto 324/011: start as an electronic issuer, only needed when neither DGI\'s registry nor the company (fechaResolucion) knows it; when they do it must match.'),
  grandeContribuyente: z.boolean().optional().describe('Decreto 324/011: the company is CEDE or a large taxpayer (SaaS cap USD 8,000 instead of 3,000). Default false.'),
  inversiones: z.array(investment).max(100).optional().describe('Decreto 324/011: the initial investment, at least one line.'),
  declarante: z.object({
    nombre: z.string().trim().min(1).max(150).describe('Full name of the person who declares.'),
    documento: z.string().trim().min(1).max(20).describe('Their identity document.'),
    cargo: z.string().trim().min(1).max(100).describe('Their capacity (titular, director, apoderado…).'),
  }),
  aceptaDeclaracionJurada: z.literal(true).describe('Must be `true`: the declarant states under oath that the facts are true.'),
});
export type DeclarationBody = z.infer<typeof declarationBody>;

export const companyQuery = z.object({ idEmpresa: positiveInt4.describe('Company.') });
export const listQuery = pagingQuery.extend({
  idEmpresa: positiveInt4.describe('Company.'),
  anioFiscal: z.coerce.number().int().min(2011).max(2100).optional().describe('Only this fiscal year.'),
  regimen: z.enum(REGIMES).optional().describe('Only this regime.'),
});
export const statusQuery = companyQuery.extend({ fecha: calendarDate.optional().describe('Day whose period is asked (default today, Uruguay).') });
export const pdfQuery = z.object({ id: positiveInt4.describe('Declaration id.') });

export const declarationView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  anioFiscal: z.number().int(),
  regimen,
  fundamento: fundamento.nullable(),
  estado: z.enum(['vigente', 'reemplazada']).describe('`reemplazada` once a newer declaration for the same year and regime was saved.'),
  reemplazadaPor: z.number().int().nullable().describe('Id of the declaration that superseded it.'),
  reemplazadaEn: z.string().nullable(),
  fechaDeclaracion: z.string().describe('When it was saved (ISO 8601).'),
  fechaInicioEmisor: z.string().nullable().describe('Start as an electronic issuer the checks used.'),
  fuenteFechaInicio: z.enum(['registro_dgi', 'empresa', 'declarada']).nullable().describe('Where that date came from: DGI\'s registry, the company\'s fechaResolucion, or this declaration.'),
  hechos: z.record(z.string(), z.unknown()).describe('The facts declared and derived: ingresosAnioAnterior, ingresosAnioAnteriorUi, valorUiCierre, fechaInicioActividad, grandeContribuyente, inversiones, exoneracion {porcentaje, ejercicios, topeImpuestoPorcentaje, invertido, exonerable by currency}, empresa (as it was).'),
  declarante: z.object({ nombre: z.string(), documento: z.string(), cargo: z.string() }),
});
export const declarationsPage = pagedResponse(declarationView);

const regimeStatus = z.object({
  vigente: z.boolean().describe('A current declaration covers the period.'),
  declaracion: declarationView.nullable(),
  vigenteHasta: z.string().nullable().describe('Last day it covers (end of its fiscal year).'),
});
export const statusView = z.object({
  idEmpresa: z.number().int(),
  fecha: z.string(),
  periodo: z.string().describe('YYYY-MM.'),
  decreto_206_019: regimeStatus.extend({
    creditoMensual: z.object({
      topeUi: z.string().describe('80.'),
      valorUi: z.string().describe('BCU\'s UI value (code 9800) used.'),
      fechaValorUi: z.string().describe('Date of that value: the month\'s last day, or the latest earlier day BCU has.'),
      topePesos: z.string().describe('80 × valorUi, rounded to cents: the most the month\'s credit can be, in pesos.'),
    }).nullable().describe('Only when in force; null also when BCU could not be reached (see avisos).'),
  }),
  decreto_324_011: regimeStatus,
  avisos: z.array(z.string()),
});

export const startDateView = z.object({
  idEmpresa: z.number().int(),
  rut: z.string(),
  fechaInicio: z.string().describe('Start as an electronic issuer.'),
  fuente: z.enum(['registro_dgi', 'empresa']).describe('`registro_dgi`: DGI\'s registry of electronic issuers (EFACCONSULTARRUCEMISORES); `empresa`: the company\'s fechaResolucion.'),
  leidoEn: z.string().nullable().describe('When the registry entry was read from DGI (ISO 8601); null for `empresa`.'),
  registro: z.object({
    denominacion: z.string(), fechaFinTransicion: z.string().nullable(), fechaFin: z.string().nullable(), mail: z.string().nullable(),
  }).nullable().describe('The rest of the registry entry.'),
});
