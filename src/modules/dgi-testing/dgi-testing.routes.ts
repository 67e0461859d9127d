/**
 * Operator endpoints of DGI's testing set (issue 47): start a run as a job and follow its progress.
 * The same run as `npm run dgi:testing -- --empresa <id>`, inside the service (no second process on
 * the embedded database or the in-process simulator).
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { DgiTestingService } from './dgi-testing.service.js';

const run = z.object({
  id: z.number(), idEmpresa: z.number(), destino: z.string().describe('simulador, or dgi_testing in DGI_MODE=real'), cantidadPorTipo: z.number(),
  estado: z.string().describe('en_curso, completado, no_listo (preflight failed, nothing issued), error'),
  progreso: z.string().nullable().describe('The last progress line'),
  reporte: z.unknown().describe('When ended: counts per type and DGI verdict (porTipo), rechazos with DGI code and receipt, reporteDiario, requisitosCumplidos, faltantes, declaraciones (BRIEF 13); or the preflight when not ready / dry run'),
  error: z.string().nullable(), inicio: z.string(), fin: z.string().nullable(),
});
const tags = ['Prueba de Testing DGI'];

export function dgiTestingRoutes(service: DgiTestingService): FastifyPluginAsyncZod {
  return async (app) => {
    app.post('/api/v1/dgi/testing', {
      config: { minRole: 'administrador' },
      schema: {
        tags, summary: 'Start DGI\'s testing set for a company (job)',
        description: 'Queues the "Prueba de Testing" (BRIEF 13): a preflight (certificate, CAE ranges, branch address, RUT with DGI in DGI_MODE=real, every e-Ticket sent individually), then `cantidad` (default and DGI minimum 50) of each of 101, 102, 103, 111, 112, 113 issued and followed to DGI\'s verdict, then that day\'s daily report sent and followed. Against the simulator unless DGI_MODE=real. `soloVerificar`: only the preflight, nothing is issued. Answers 202 with the run; GET it for progress and the report. 409 PRUEBA_EN_CURSO when the company has one running. Role: administrador of the company.',
        body: z.object({ idEmpresa: z.number().int().positive(), cantidad: z.number().int().min(1).max(1000).optional(), soloVerificar: z.boolean().optional() }),
        response: { 202: run, ...errorResponses, 409: errorBody },
      },
    }, async (req, reply) => reply.status(202).send(await service.start(requireActor(req), req.body.idEmpresa, req.body)));

    app.get('/api/v1/dgi/testing/:id', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'A testing-set run: progress and report', params: z.object({ id: z.coerce.number().int().positive() }), response: { 200: run, ...errorResponses }, description: '404 PRUEBA_NO_ENCONTRADA also for another company\'s run.' },
    }, async (req) => service.get(requireActor(req), req.params.id));

    app.get('/api/v1/dgi/testing', {
      config: { minRole: 'lectura' },
      schema: { tags, summary: 'Testing-set runs of a company, newest first (100)', querystring: z.object({ idEmpresa: z.coerce.number().int().positive() }), response: { 200: z.array(run), ...errorResponses } },
    }, async (req) => service.list(requireActor(req), req.query.idEmpresa));
  };
}
