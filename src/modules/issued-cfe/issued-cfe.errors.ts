/**
 * Emission rejections (spec 7.3) and issued-CFE lookups. Every business rule has its own code so
 * an integration can react to it; the messages are sentences a cashier can act on.
 * 422 = the receipt breaks a rule; 409 = idempotency conflict; 429 = usage limit (spec 8.2).
 */
import { defineErrors } from '../../lib/errors.js';

export const issuedCfeErrors = defineErrors({
  CFE_NO_ENCONTRADO: { status: 404, message: 'El comprobante emitido no existe.' },
  TIPO_CFE_INVALIDO: { status: 422, message: 'El tipo de comprobante (idDoc.tipoCfe) no es un tipo de CFE electrónico válido.' },
  REFERENCIA_REQUERIDA: { status: 422, message: 'Las notas de crédito y débito deben indicar en referencias el comprobante que corrigen.' },
  REFERENCIA_INCOMPLETA: { status: 422, message: 'Cada referencia debe ser global (indicadorGlobal = 1 con razon) o indicar tipoCfe, serie y numero del comprobante referenciado.' },
  COBRANZA_PROPIA_SIN_REFERENCIA: { status: 422, message: 'Un comprobante de cobranza propia (indCobPropia = 1) debe incluir al menos una referencia completa al comprobante que se cobra.' },
  COBRANZA_PROPIA_INDICADOR: { status: 422, message: 'Con cobranza propia (indCobPropia = 1) todas las líneas deben tener indicadorFacturacion 6 o 7.' },
  CLIENTE_RECEPTOR_NO_ENCONTRADO: { status: 422, message: 'El cliente indicado en receptor.idCliente no existe en esta empresa.' },
  RUT_RECEPTOR_NO_RESUELTO: { status: 422, message: 'No se pudo obtener la razón social del receptor: no es cliente de la empresa y DGI no devolvió datos válidos para ese RUT. Registre el cliente o revise el documento.' },
  RECEPTOR_RUC_REQUERIDO: { status: 422, message: 'Una e-Factura requiere un receptor con RUT uruguayo válido (documento de 12 dígitos) y razón social.' },
  RECEPTOR_REQUERIDO: { status: 422, message: 'Este comprobante requiere identificar al receptor (documento y tipo de documento).' },
  RECEPTOR_REQUERIDO_TOPE_UI: { status: 422, message: 'El monto neto supera el tope de 5.000 UI: identifique al receptor con su documento.' },
  DOCUMENTO_RECEPTOR_INVALIDO: { status: 422, message: 'El documento del receptor no es válido (dígito verificador o formato).' },
  MONEDA_NO_EXISTE: { status: 422, message: 'La moneda indicada en totales.tipoMoneda no existe en el catálogo.' },
  TIPO_CAMBIO_NO_RESUELTO: { status: 422, message: 'No se encontró tipo de cambio para la moneda y la fecha de emisión: envíe totales.tipoCambio o cargue la cotización.' },
  FECHA_EMISION_FUERA_DE_RANGO: { status: 422, message: 'La fecha de emisión debe estar entre el 01/10/2011 y 60 días después de hoy.' },
  LINEAS_FUERA_DE_RANGO: { status: 422, message: 'La cantidad de líneas de detalle no está permitida para este tipo de comprobante.' },
  INDICADOR_FACTURACION_INVALIDO: { status: 422, message: 'El indicadorFacturacion de una línea no está permitido para este tipo de comprobante.' },
  TOTALES_INVALIDOS: { status: 422, message: 'Los totales no se pueden calcular con los datos enviados.' },
  XML_INVALIDO: { status: 422, message: 'El comprobante no cumple el esquema XSD de DGI.' },
  SIN_NUMERACION_CAE: { status: 422, message: 'No hay un rango CAE vigente con números disponibles para este tipo y serie.' },
  SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado de firma activo.' },
  LIMITE_MENSUAL_EXCEDIDO: { status: 429, message: 'La empresa alcanzó su límite mensual de comprobantes.' },
  IDEMPOTENCIA_CONFLICTO: { status: 409, message: 'La Idempotency-Key ya se usó con otra solicitud distinta; use una clave nueva.' },
  FIRMA_XML_INVALIDA: { status: 422, message: 'El XML enviado no se pudo firmar.' },
});
