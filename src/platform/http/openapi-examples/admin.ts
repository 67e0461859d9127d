/** Examples of the webhook and administration operations. */
import { IDS, type ExampleCatalogue } from './types.js';

export const adminExamples: ExampleCatalogue = {
  postWebhooks: { request: { name: 'ERP: comprobantes emitidos', url: 'https://erp.laestrella.com.uy/webhooks/cfe', events: ['Cfe.Emitido', 'Cfe.RechazadoDgi'], secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', maxAttempts: 8 } },
  patchWebhooksById: { request: { events: ['Cfe.Emitido', 'Cfe.RechazadoDgi', 'OrdenDeVenta.Finalizada'] } },
  postWebhooksByIdReenviar: { request: { desde: '2026-11-27T00:00:00-03:00', hasta: '2026-11-27T23:59:59-03:00', estados: ['fallido', 'agotado'] } },
  postUsuarioCrear: { request: { usuario: 'caja1@laestrella.com.uy', nombre: 'Caja 1', clave: 'Clave-de-caja-2026', empresas: [{ idEmpresa: IDS.empresa, rol: 'emisor' }] } },
  postUsuarioEditar: { request: { idUsuario: IDS.usuario, nombre: 'Caja 1 (turno mañana)' } },
  postUsuarioActualizarClave: { request: { claveActual: 'Clave-de-caja-2026', claveNueva: 'Otra-clave-de-caja-2026' } },
  postUsuarioDesbloquear: { request: { idUsuario: IDS.usuario } },
  // DGI's testing set: soloVerificar checks certificate, CAE ranges, address and RUT without issuing anything.
  postDgiTesting: { request: { idEmpresa: IDS.empresa, soloVerificar: true } },
};
