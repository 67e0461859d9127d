/**
 * Every endpoint of the interface spec (section 4), with the area that owns it. Routes a module has
 * not registered yet answer 501 NO_IMPLEMENTADO naming the area, so the API surface (and
 * /openapi.json) is complete from day one and the 501s shrink to zero as areas land (issue 2 point 2).
 */
export interface SpecEndpoint {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  summary: string;
  area: string;
}

const e = (method: SpecEndpoint['method'], path: string, summary: string, area: string): SpecEndpoint => ({ method, path, summary, area });

const AUTH = 'autenticación y usuarios';
const EMIT = 'emisión de CFE';
const ISSUED = 'CFE emitidos (búsqueda, impresión, exportación, correo)';
const DGI = 'ida y vuelta con DGI (sobres, estados)';
const RECEIVED = 'CFE recibidos';
const CAE = 'datos fiscales (CAE, certificados)';
const COMPANIES = 'empresas, sucursales y puntos de emisión';
const MAILCHECK = 'configuración de correo de la empresa';
const BENEFIT = 'beneficio fiscal';
const RECURRING = 'facturación recurrente';
const SUBS = 'suscripciones y contratos';
const HOOKS = 'webhooks y eventos';

export const specEndpoints: SpecEndpoint[] = [
  e('POST', '/api/auth/login', 'Log in', AUTH),
  e('POST', '/api/auth/recuperarClave', 'Recover password', AUTH),
  e('POST', '/api/auth/restablecerClave', 'Reset password', AUTH),
  e('POST', '/api/v1/auth/revoke-all-tokens', 'Revoke all refresh tokens', AUTH),
  e('POST', '/api/v1/auth/revoke/:refreshToken', 'Revoke one refresh token', AUTH),

  e('POST', '/api/v1/comprobante/emitir', 'Emit a receipt', EMIT),
  e('POST', '/api/v1/comprobante/firmarXml', 'Sign XML', EMIT),
  e('GET', '/api/v1/comprobante/getByIdCfeEmitido', 'Get receipt by issued CFE id', EMIT),
  e('GET', '/api/v1/comprobante/previsualizar/:token', 'Preview PDF by token', ISSUED),
  e('POST', '/api/v1/comprobante/previsualizar', 'Preview PDF', ISSUED),

  e('GET', '/api/v1/cfeemitido/buscar', 'Search issued CFE', ISSUED),
  e('GET', '/api/v1/cfeemitido/:id', 'Get issued CFE by id', EMIT),
  e('GET', '/api/v1/cfeemitido/representacionImpresa', 'Printed representation (PDF)', ISSUED),
  e('GET', '/api/v1/cfeemitido/graficaDiaria', 'Daily chart', ISSUED),
  e('GET', '/api/v1/cfeemitido/graficaFacturacionMensual', 'Monthly billing chart', ISSUED),
  e('GET', '/api/v1/cfeemitido/getConfiguracionExportacionCfe', 'Export configuration', ISSUED),
  e('POST', '/api/v1/cfeemitido/exportarExcel', 'Export to spreadsheet', ISSUED),
  e('POST', '/api/v1/cfeemitido/enviarPdfPorCorreo', 'Send PDF by e-mail', ISSUED),
  e('GET', '/api/v1/cfeemitido/emailenvios', 'E-mail send history', ISSUED),
  e('POST', '/api/v1/cfeemitido/generarSobreDgi', 'Generate envelope for DGI', DGI),
  e('POST', '/api/v1/cfeemitido/generarSobreReceptor', 'Generate envelope for the receiver', DGI),
  e('POST', '/api/v1/cfeemitido/descargarPdfsFiltrados', 'Download filtered PDFs', ISSUED),
  e('POST', '/api/v1/cfeemitido/:id/marcar-aceptado', 'Manually mark accepted', DGI),
  e('POST', '/api/v1/ExportacionContable/exportarExt', 'Accounting export', ISSUED),

  e('GET', '/api/v1/cferecibido/buscar', 'Search received CFE', RECEIVED),
  e('GET', '/api/v1/cferecibido/:id', 'Get received CFE by id', RECEIVED),
  e('GET', '/api/v1/cferecibido/representacionImpresa', 'Received CFE PDF', RECEIVED),
  e('POST', '/api/v1/cferecibido/aceptar', 'Accept received CFE', RECEIVED),
  e('POST', '/api/v1/cferecibido/rechazar', 'Reject received CFE', RECEIVED),
  e('POST', '/api/v1/cferecibido/exportarExcel', 'Export received CFE to spreadsheet', RECEIVED),
  e('POST', '/api/v1/cferecibido/marcarComoImportadoStock/:id', 'Mark imported into stock', RECEIVED),
  e('GET', '/api/v1/cferecibido/getConfiguracionExportacionCfe', 'Received CFE export configuration', RECEIVED),
  e('POST', '/api/v1/cferecibido/descargarPdfsFiltrados', 'Download filtered received PDFs', RECEIVED),
  e('POST', '/api/v1/cferecibido/consultarQr', 'Query the QR at DGI', RECEIVED),
  e('POST', '/api/v1/cferecibido/conciliar', 'Reconcile with DGI', RECEIVED),
  e('POST', '/api/v1/cferecibido/exportarConciliacion', 'Export reconciliation', RECEIVED),

  e('GET', '/api/v1/cae/todos', 'List CAE', CAE),
  e('POST', '/api/v1/cae/importar', 'Import CAE from XML', CAE),
  e('POST', '/api/v1/cae/importar-manual', 'Manual CAE import', CAE),
  e('POST', '/api/v1/cae/validar', 'Validate CAE XML', CAE),
  e('POST', '/api/v1/cae/modificarSucursal', 'Change the CAE branch', CAE),
  e('POST', '/api/v1/cae/altaCfc', 'Create CFC', CAE),
  e('POST', '/api/v1/cae/editarCfc', 'Edit CFC', CAE),
  e('POST', '/api/v1/cae/anular-completo', 'Void a whole CAE', CAE),
  e('POST', '/api/v1/cae/ajustar-proximo-numero', 'Adjust next number', CAE),
  e('GET', '/api/v1/cae/obtenerDisponibilidad', 'Availability', CAE),
  e('GET', '/api/v1/cae/numeroDisponibleContingencia', 'Number available in contingency', CAE),

  e('POST', '/api/v1/empresa/crear', 'Create company', COMPANIES),
  e('POST', '/api/v1/empresa/editar', 'Edit company', COMPANIES),
  e('GET', '/api/v1/empresa/:id', 'Get company by id', COMPANIES),
  e('DELETE', '/api/v1/empresa/:id', 'Delete company', COMPANIES),
  e('GET', '/api/v1/empresa/todas', 'List companies', COMPANIES),
  e('GET', '/api/v1/empresa/exportarExcel', 'Export companies to spreadsheet', COMPANIES),
  e('GET', '/api/v1/empresa/parametros', 'Company parameters', COMPANIES),
  e('GET', '/api/v1/empresa/cfe', 'CAE ranges of the company', CAE),
  e('POST', '/api/v1/empresa/habilitar/:id', 'Enable company by id', COMPANIES),
  e('POST', '/api/v1/empresa/deshabilitar/:id', 'Disable company by id', COMPANIES),
  e('POST', '/api/v1/empresa/habilitarPorRut/:rut', 'Enable company by RUT', COMPANIES),
  e('POST', '/api/v1/empresa/deshabilitarPorRut/:rut', 'Disable company by RUT', COMPANIES),
  e('POST', '/api/v1/empresa/actualizarLogo', 'Update company logo', COMPANIES),
  e('POST', '/api/v1/empresa/eliminarLogo', 'Remove company logo', COMPANIES),
  e('POST', '/api/v1/empresa/asignarCertificado', 'Assign an existing certificate', CAE),
  e('POST', '/api/v1/empresa/importarCertificado', 'Import certificate', CAE),
  e('GET', '/api/v1/empresa/:id/certificados', 'List certificates of a company', CAE),
  e('POST', '/api/v1/empresa/verificar-email-entrante', 'Test inbound mail reception', MAILCHECK),
  e('POST', '/api/v1/empresa/verificar-email-saliente', 'Test outbound SMTP sending', MAILCHECK),
  e('POST', '/api/v1/empresa/beneficio-fiscal/declaracion', 'Save tax-benefit declaration', BENEFIT),
  e('GET', '/api/v1/empresa/beneficio-fiscal/declaraciones', 'List tax-benefit declarations', BENEFIT),
  e('GET', '/api/v1/empresa/beneficio-fiscal/estado', 'Declaration status', BENEFIT),
  e('GET', '/api/v1/empresa/beneficio-fiscal/fecha-inicio', 'Activity start date', BENEFIT),
  e('GET', '/api/v1/empresa/beneficio-fiscal/declaracion/pdf', 'Download declaration PDF', BENEFIT),

  e('POST', '/api/v1/sucursal/crear', 'Create branch', COMPANIES),
  e('POST', '/api/v1/sucursal/editar', 'Edit branch', COMPANIES),
  e('GET', '/api/v1/sucursal/:id', 'Get branch by id', COMPANIES),
  e('GET', '/api/v1/sucursal/todas', 'List branches with codes', COMPANIES),
  e('GET', '/api/v1/sucursal/getEmpresasSucursales', 'Enabled companies and branches', COMPANIES),
  e('GET', '/api/v1/sucursal/getCodigoComercio', 'Get branch code', COMPANIES),
  e('POST', '/api/v1/sucursal/actualizarLogo', 'Update branch logo', COMPANIES),
  e('POST', '/api/v1/sucursal/eliminarLogo', 'Remove branch logo', COMPANIES),

  e('GET', '/api/v1/puntoemision/todos', 'List emission points', COMPANIES),
  e('POST', '/api/v1/puntoemision/crear', 'Create emission point', COMPANIES),
  e('POST', '/api/v1/puntoemision/editar', 'Update emission point', COMPANIES),
  e('GET', '/api/v1/puntoemision/:id', 'Get emission point by id', COMPANIES),
  e('GET', '/api/v1/puntoemision/sucursal/:idSucursal', 'Points of a branch', COMPANIES),
  e('GET', '/api/v1/puntoemision/getBySucursalTerminal/:idSucursal', 'Point by branch and terminal', COMPANIES),

  e('GET', '/api/v1/usuario/empresas', 'Companies of the current user', AUTH),
  e('GET', '/api/v1/usuario/:idUsuario/empresas', 'Companies of a given user', AUTH),
  e('GET', '/api/v1/usuario/todos', 'List users', AUTH),
  e('POST', '/api/v1/usuario/crear', 'Create user', AUTH),
  e('POST', '/api/v1/usuario/editar', 'Edit user', AUTH),
  e('POST', '/api/v1/usuario/actualizarClave', 'Update own password', AUTH),
  e('POST', '/api/v1/usuario/desbloquear', 'Unlock user', AUTH),

  e('GET', '/api/v1/facturacionrecurrente/buscar', 'Search recurring plans', RECURRING),
  e('GET', '/api/v1/facturacionrecurrente/catalogos', 'Recurring catalogs', RECURRING),
  e('POST', '/api/v1/facturacionrecurrente/crear', 'Create recurring plan', RECURRING),
  e('POST', '/api/v1/facturacionrecurrente/editar', 'Edit recurring plan', RECURRING),
  e('POST', '/api/v1/facturacionrecurrente/activar/:id', 'Activate recurring plan', RECURRING),
  e('GET', '/api/v1/facturacionrecurrente/reporte-historial', 'Recurring history report', RECURRING),

  e('POST', '/api/v1/usage-events', 'Usage events', SUBS),
  e('GET', '/api/v1/contracts/:id/state', 'Contract state', SUBS),
  e('GET', '/api/v1/contracts/:id/status-history', 'Usage status history', SUBS),
  e('GET', '/api/v1/contracts/:id/usage', 'Contract usage', SUBS),
  e('POST', '/api/v1/price-books', 'Price lists', SUBS),
  e('POST', '/api/v1/webhooks', 'Register a webhook', HOOKS),
];
