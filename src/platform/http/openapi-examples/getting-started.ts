/** Examples of the getting-started operations: auth, company, branch, emission point, certificate, CAE. */
import { IDS, RUT_EMPRESA, type ExampleCatalogue } from './types.js';

export const gettingStartedExamples: ExampleCatalogue = {
  postAuthLogin: {
    request: { usuario: 'admin@miempresa.com.uy', clave: 'cambiar-esta-clave' },
    response: { accessToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJh', refreshToken: 'rt_8f3kQ2xVb7LwP0aZ', tokenType: 'Bearer', expiresIn: 900 },
  },
  postAuthRefresh: { request: { refreshToken: 'rt_8f3kQ2xVb7LwP0aZ' } },
  postAuthRecuperarClave: { request: { usuario: 'contadora@miempresa.com.uy' }, response: { mensaje: 'Si el usuario existe, le enviamos un correo con instrucciones para restablecer la contraseña.' } },
  postAuthRestablecerClave: { request: { token: '4b1d9c0e7a52f3e8', nuevaClave: 'Nueva-clave-segura-2026' } },
  postEmpresaCrear: {
    request: { rut: RUT_EMPRESA, razonSocial: 'Almacén La Estrella S.A.', nombreComercial: 'La Estrella', domicilioFiscal: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', telefono: '29001234', email: 'facturacion@laestrella.com.uy', actividad: 'Comercio minorista de alimentos', CodigoCasaDgiPorDefecto: 1, regimenTributario: 'general' },
  },
  postEmpresaEditar: { request: { idEmpresa: IDS.empresa, telefono: '29005678', configuracion: { leyendaAdicional: 'Gracias por su compra' } } },
  postSucursalCrear: { request: { idEmpresa: IDS.empresa, codComercio: 'CENTRAL', nombre: 'Casa Central', direccion: 'Av. 18 de Julio 1234', ciudad: 'Montevideo', departamento: 'Montevideo', CodigoCasaDgi: 1 } },
  postSucursalEditar: { request: { idSucursal: IDS.sucursal, telefono: '29001235' } },
  postPuntoemisionCrear: { request: { idSucursal: IDS.sucursal, codTerminal: 'CAJA1', descripcion: 'Caja 1' } },
  postPuntoemisionEditar: { request: { idPuntoEmision: IDS.punto, descripcion: 'Caja 1 (planta baja)' } },
  postSandboxDgiCertificado: { request: { idEmpresa: IDS.empresa } },
  postSandboxDgiCae: { request: { idEmpresa: IDS.empresa, tipoCfe: 101, serie: 'A', desde: 1, hasta: 1000 } },
  postEmpresaAsignarCertificado: { request: { idEmpresa: IDS.empresa, idCertificado: IDS.certificado } },
  postCaeImportarManual: {
    request: { idEmpresa: IDS.empresa, tipoCfe: 112, serie: 'A', desde: 1, hasta: 500, numeroCae: '90260000030', fechaAutorizacion: '2026-11-02', fechaVencimiento: '2028-11-01' },
  },
  postCaeValidar: { request: { idEmpresa: IDS.empresa, xml: '<?xml version="1.0" encoding="UTF-8"?><ACKCAE …>(the CAE file as DGI gives it)</ACKCAE>' } },
  postCaeModificarSucursal: { request: { idCae: IDS.caeTicket, idSucursal: IDS.sucursal } },
  postCaeAjustarProximoNumero: { request: { idCae: IDS.caeTicket, proximoNumero: 101 } },
  postCaeAnularCompleto: { request: { idCae: 3 } },
  postCaeAltaCfc: { request: { idEmpresa: IDS.empresa, tipoCFC: 201, serie: 'B', desde: 1, hasta: 200, constancia: '90260000511', fechaVencimiento: '2028-06-30' } },
  postCaeEditarCfc: { request: { idCfc: 1, constancia: '90260000512' } },
  putEmpresaCorreoSaliente: { request: { idEmpresa: IDS.empresa, smtpHost: 'smtp.laestrella.com.uy', smtpPuerto: 587, smtpSeguro: false, smtpUsuario: 'facturacion@laestrella.com.uy', smtpClave: 'clave-smtp', remitente: 'Almacén La Estrella <facturacion@laestrella.com.uy>' } },
  postEmpresaVerificarEmailSaliente: { request: { idEmpresa: IDS.empresa, destinatario: 'contadora@laestrella.com.uy' } },
  putEmpresaCorreoEntrante: { request: { idEmpresa: IDS.empresa, host: 'imap.laestrella.com.uy', puerto: 993, tls: true, usuario: 'cfe-recibidos@laestrella.com.uy', clave: 'clave-imap', carpeta: 'INBOX', direccion: 'cfe-recibidos@laestrella.com.uy', activo: false } },
  // Answer hand-made: the flow has no IMAP server (checked against Dovecot by the received-CFE tests).
  postEmpresaVerificarEmailEntrante: {
    request: { idEmpresa: IDS.empresa },
    response: { ok: true, carpeta: 'INBOX', mensajes: 12, uidValidity: 1764201600, ultimoUidProcesado: 9, ultimoSondeoOk: '2026-11-27T14:55:03.000Z' },
  },
  putEmpresaEnvioDgi: { request: { idEmpresa: IDS.empresa, envioIndividual: 'todos' } },
  // Hand-made: the logo uploads are multipart/form-data (not posted by the flow); the answer is the detected type and size.
  postEmpresaActualizarLogo: { response: { idEmpresa: IDS.empresa, contentType: 'image/png', bytes: 18342 } },
  postSucursalActualizarLogo: { response: { idSucursal: IDS.sucursal, contentType: 'image/jpeg', bytes: 41209 } },
};
