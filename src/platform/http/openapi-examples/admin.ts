/** Examples of the webhook and administration operations. */
import { IDS, type ExampleCatalogue } from './types.js';

export const adminExamples: ExampleCatalogue = {
  postWebhooks: { request: { name: 'ERP: comprobantes emitidos', url: 'https://erp.laestrella.com.uy/webhooks/cfe', events: ['Cfe.Emitido', 'Cfe.RechazadoDgi'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', maxAttempts: 8 } },
  patchWebhooksById: { request: { events: ['Cfe.Emitido', 'Cfe.RechazadoDgi', 'OrdenDeVenta.Finalizada'] } },
  postWebhooksByIdReenviar: { request: { desde: '2026-11-27T00:00:00-03:00', hasta: '2026-11-27T23:59:59-03:00', estados: ['fallido', 'agotado'] } },
  // Hand-made (the flow's deliveries stay pendiente: no worker delivers them): a delivery that ran out of
  // attempts, queued again with a fresh budget; its past attempts stay in `intentos`.
  postWebhooksByIdEntregasByIdEntregaReenviar: {
    response: {
      id: 14, eventId: 'evt_27', eventType: 'Cfe.Emitido', status: 'pendiente', attempts: 0, nextAttemptAt: '2026-11-27T17:42:10.000Z',
      idempotencyKey: '3f6c1a52-8d0e-4b7a-9c41-2e5f7d9a1b08', lastStatusCode: 503, lastError: null, deliveredAt: null, createdAt: '2026-11-26T13:05:12.000Z',
      intentos: [
        { number: 7, time: '2026-11-27T05:05:14.000Z', statusCode: 503, durationMs: 212, error: null, responseExcerpt: '<html><body>Service Unavailable</body></html>', outcome: 'reintento' },
        { number: 8, time: '2026-11-27T13:05:13.000Z', statusCode: 503, durationMs: 198, error: null, responseExcerpt: '<html><body>Service Unavailable</body></html>', outcome: 'agotado' },
      ],
    },
  },
  postUsuarioCrear: { request: { usuario: 'caja1@laestrella.com.uy', nombre: 'Caja 1', clave: 'Clave-de-caja-2026', empresas: [{ idEmpresa: IDS.empresa, rol: 'emisor' }] } },
  postUsuarioEditar: { request: { idUsuario: IDS.usuario, nombre: 'Caja 1 (turno mañana)' } },
  postUsuarioActualizarClave: { request: { claveActual: 'Clave-de-caja-2026', claveNueva: 'Otra-clave-de-caja-2026' } },
  postUsuarioDesbloquear: { request: { idUsuario: IDS.usuario } },
  // DGI's testing set: soloVerificar checks certificate, CAE ranges, address and RUT without issuing anything.
  postDgiTesting: { request: { idEmpresa: IDS.empresa, soloVerificar: true } },
};
