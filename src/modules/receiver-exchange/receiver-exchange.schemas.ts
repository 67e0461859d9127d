import { z } from 'zod';
import { companyRef } from '../../platform/http/company-refs.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { pagingQuery } from '../../platform/http/paging.js';

export const generateBody = z.object({
  idEmpresa: z.number().int().positive(),
  idsCfe: z.array(companyRef(z.number().int().positive(), 'cfe', { error: 'CFE_NO_ENCONTRADO_SOBRE' })).min(1).max(250).describe('Ids of issued CFEs (same receiver RUT, no CFC), 1..250, in envelope order.'),
  enviarPorCorreo: z.boolean().optional().describe('Also e-mail it to the customer\'s exchange address and mark the CFEs receptor_pendiente. Default false (only returns the envelope).'),
});

export const ackBody = z.object({
  idEmpresa: z.number().int().positive(),
  xml: z.string().min(1).max(5_000_000).describe('The receiver\'s signed ACKSobre or ACKCFE (ACKCFE_Partes.xsd) document, as received.'),
});

const motivo = z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullable() });
export const ackResult = z.object({
  tipo: z.enum(['ACKSobre', 'ACKCFE']),
  idRespuesta: z.number().int().describe('Id under which the uploaded answer was stored.'),
  enlace: z.string().describe('GET path of the stored answer: /api/v1/cfeemitido/respuestaReceptor/{idRespuesta}.'),
  idSobre: z.number().int().nullable().describe('ACKSobre: the envelope (its Idemisor).'),
  estadoSobre: z.enum(['recibido', 'rechazado']).nullable().describe('ACKSobre: AS → recibido, BS → rechazado (S-codes in motivos).'),
  motivos: z.array(motivo),
  cfes: z.array(z.object({
    id: z.number().int(), tipoCfe: z.number().int(), serie: z.string(), numero: z.number().int(),
    estadoReceptor: z.enum(['receptor_pendiente', 'receptor_aceptado', 'receptor_rechazado', 'receptor_observado']),
    cambio: z.boolean().describe('false when the answer repeats the stored state (nothing written, no event).'),
    motivos: z.array(motivo),
  })).describe('ACKCFE: one entry per ACKCFE_Det.'),
});

export const noticeParams = z.object({ id: z.coerce.number().int().positive().describe('Id of the notice = its IDComunicacion.') });

// ---- The issuer's view of the exchange (issue 42 point 4) ---------------------------------------

const idEmpresa = z.coerce.number().int().positive().max(PG_INT_MAX);
const idCfeFilter = z.coerce.number().int().positive().optional().describe('Only rows that carry / name this issued CFE.');

export const envelopesQuery = pagingQuery.extend({
  idEmpresa,
  estado: z.enum(['generado', 'pendiente', 'enviado', 'error', 'recibido', 'rechazado']).optional(),
  rutReceptor: z.string().regex(/^\d{12}$/).optional(),
  idCfe: idCfeFilter,
});

export const answersQuery = pagingQuery.extend({
  idEmpresa,
  estado: z.enum(['aplicada', 'rechazada']).optional(),
  canal: z.enum(['importacion', 'correo']).optional(),
  tipo: z.enum(['ACKSobre', 'ACKCFE']).optional(),
  idSobre: z.coerce.number().int().positive().optional(),
  idCfe: idCfeFilter,
});

export const answerView = z.object({
  id: z.number().int().describe('Our id of the stored answer.'),
  idEmpresa: z.number().int(),
  tipo: z.enum(['ACKSobre', 'ACKCFE']),
  canal: z.enum(['importacion', 'correo']).describe('importacion: POST respuestaReceptor; correo: read from the company\'s inbound mailbox.'),
  estado: z.enum(['aplicada', 'rechazada']).describe('aplicada: states updated (or already so); rechazada: refused, nothing changed, no event (see codigo, error).'),
  codigo: z.string().nullable().describe('Error code of a refused answer (e.g. RESPUESTA_RECEPTOR_NO_ES_RECEPTOR).'),
  error: z.string().nullable(),
  rutReceptor: z.string().describe('Caratula/RUCReceptor: who answered.'),
  idRespuestaReceptor: z.string().nullable().describe('Caratula/IDRespuesta as the receiver numbered it.'),
  idSobre: z.number().int().nullable().describe('ACKSobre: the envelope (its Idemisor).'),
  idsCfe: z.array(z.number().int()).describe('The company\'s issued CFEs the answer is about.'),
  idUsuario: z.number().int().nullable(),
  fecha: z.string(),
  enlace: z.string().describe('GET path of the answer as received: /api/v1/cfeemitido/respuestaReceptor/{id}.'),
});

const motivo2 = z.object({ codigo: z.string(), glosa: z.string(), detalle: z.string().nullable() });
export const envelopeView = z.object({
  id: z.number().int().describe('= its Idemisor.'),
  idEmpresa: z.number().int(),
  idCliente: z.number().int().nullable(),
  rutReceptor: z.string(),
  medio: z.enum(['correo', 'descarga']).describe('correo: e-mailed by the service; descarga: only returned by generarSobreReceptor.'),
  email: z.string().nullable(),
  estado: z.string().describe('generado, pendiente (e-mail queued), enviado, error (attempts used up or refused by the server), then the receiver\'s ACKSobre: recibido (AS) or rechazado (BS, motivos).'),
  transporte: z.string().nullable().describe('empresa (its correoSaliente), servicio (SMTP_URL) or outbox (no SMTP: only written to DATA_DIR/outbox, never sent).'),
  intentos: z.number().int(),
  ultimoError: z.string().nullable(),
  messageId: z.string().nullable(),
  fechaCreacion: z.string(),
  fechaEnvio: z.string().nullable(),
  idsCfe: z.array(z.number().int()),
  archivo: z.string(),
  motivos: z.array(motivo2).describe('S-codes of a BS ACKSobre.'),
  enlace: z.string().describe('GET path of the envelope XML: /api/v1/cfeemitido/sobreReceptor/{id}.'),
  respuestas: z.array(answerView).describe('ACKSobre answers received for this envelope, refused ones included.'),
});

export const noticeView = z.object({
  id: z.number().int().describe('= IDComunicacion.'), idEmpresa: z.number().int(), rutReceptor: z.string(), email: z.string(), estado: z.string(),
  transporte: z.string().nullable(), intentos: z.number().int(), ultimoError: z.string().nullable(), fechaCreacion: z.string(), fechaEnvio: z.string().nullable(),
  idsCfe: z.array(z.number().int()), archivo: z.string(), enlace: z.string(),
});

export const cfeExchange = z.object({
  idCfe: z.number().int(), idEmpresa: z.number().int(), tipoCfe: z.number().int(), serie: z.string(), numero: z.number().int(),
  rutReceptor: z.string().nullable(),
  estadoReceptor: z.string().nullable().describe('receptor_pendiente, receptor_aceptado, receptor_rechazado, receptor_observado; null: never sent to a receiver.'),
  sobres: z.array(envelopeView), respuestas: z.array(answerView), avisosAnulacion: z.array(noticeView),
});

export const idParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
