import { z } from 'zod';
import { pagingQuery } from '../../platform/http/paging.js';
import { ENVELOPE_STATES, ENVIO_INDIVIDUAL_MODES } from './dgi-submission.policy.js';
import { companyRef } from '../../platform/http/company-refs.js';

export const cfeIdParams = z.object({ id: z.coerce.number().int().positive() });
export const envelopeIdParams = z.object({ id: z.coerce.number().int().positive() });

export const generarSobreBody = z.object({
  idEmpresa: z.number().int().positive(),
  idsCfe: z.array(companyRef(z.number().int().positive(), 'cfe', { error: 'SOBRE_CFE_NO_ENCONTRADO' })).min(1).max(250).describe('Issued CFE ids (1..250, same company).'),
});

export const marcarAceptadoBody = z.object({
  motivo: z.string().trim().min(3).max(500).describe('Why the CFE is taken as accepted (e.g. "aceptado en el portal de DGI"); stored in the history with the user.'),
});

const motivoItem = z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullable() });

export const historyEntry = z.object({
  lado: z.string().describe("'dgi' or 'receptor'."),
  estadoAnterior: z.string().nullable(),
  estado: z.string(),
  codigo: z.string().nullable().describe('AS, BS, AE, BE, CE, MANUAL or the first S/E/C code of DGI.'),
  motivos: z.array(motivoItem).nullable().describe('DGI motives: codigo (S01…, E01…, C03…), glosa, detalle.'),
  mensaje: z.string().nullable(),
  referencia: z.string().nullable().describe('sobre:<id> IDReceptor:<DGI id of the envelope>.'),
  idUsuario: z.number().int().nullable().describe('User of a manual change.'),
  motivo: z.string().nullable().describe('Reason given for a manual change.'),
  fecha: z.string().describe('ISO 8601 timestamp of the change.'),
});

export const historyResponse = z.object({
  id: z.number().int(),
  estado: z.string(),
  estadoReceptor: z.string().nullable(),
  historial: z.array(historyEntry),
});

export const envelopeView = z.object({
  id: z.number().int(),
  idEmpresa: z.number().int(),
  idEmisor: z.number().int(),
  estado: z.enum(ENVELOPE_STATES),
  cantidadCfe: z.number().int(),
  bytes: z.number().int(),
  fecha: z.string(),
  intentosEnvio: z.number().int(),
  intentosConsulta: z.number().int(),
  estadoAckSobre: z.string().nullable(),
  idReceptor: z.string().nullable(),
  consultarDesde: z.string().nullable(),
  proximoIntento: z.string().nullable(),
  errorCodigo: z.string().nullable(),
  errorMensaje: z.string().nullable(),
  creadoEn: z.string(),
  enviadoEn: z.string().nullable(),
  procesadoEn: z.string().nullable(),
  nombreArchivo: z.string(),
});

export const envelopesQuery = pagingQuery.extend({ idEmpresa: z.coerce.number().int().positive() });
export const settingsQuery = z.object({ idEmpresa: z.coerce.number().int().positive() });
export const settingsBody = z.object({
  idEmpresa: z.number().int().positive(),
  envioIndividual: z.enum(ENVIO_INDIVIDUAL_MODES).describe("'todos' (default) or 'obligatorios'."),
});
export const settingsResponse = settingsBody;
