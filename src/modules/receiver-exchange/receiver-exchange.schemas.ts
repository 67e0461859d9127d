import { z } from 'zod';
import { companyRef } from '../../platform/http/company-refs.js';

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
