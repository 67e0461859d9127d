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
  /** BRIEF 2.4 (A-C112..A-C130): sent totales are checked against DGI's equations, not recalculated (spec 2.3 rule 1). `ecuacion` names the Formato rule, `valores` the values compared. */
  TOTALES_DESCUADRADOS: { status: 422, message: 'Los totales enviados no cumplen una regla de DGI (ecuacion y valores indican cuál): corríjalos u omita totales para que se calculen.' },
  /** BRIEF 2.5: a line needs NomItem and Cantidad (and PrecioUnitario on priced types), sent or taken from its variant (spec 2.1 idVariante). `campo` names the field. */
  LINEA_INCOMPLETA: { status: 422, message: 'A una línea de detalle le falta un dato obligatorio (campo indica cuál): envíelo o complételo en la variante del producto.' },
  /** BRIEF 2.5 (B-C1): NroLinDet is 1..n in order; a different numeroLineaDetalle is refused, not renumbered. */
  LINEA_NUMERO_INVALIDO: { status: 422, message: 'numeroLineaDetalle debe ser la posición de la línea (1, 2, …): corríjalo u omítalo.' },
  /** BRIEF 2.1 (A-C10): MntBruto per type (XSD) and 2 (IMEBA included) only with sent totales outside the e-Boleta. */
  MONTO_BRUTO_INVALIDO: { status: 422, message: 'idDoc.mntBruto no corresponde a este tipo de comprobante o requiere enviar los totales.' },
  /** BRIEF 2.1, 2.7 (XSD per type): a field whose DGI element this CFE type does not have; `campo` names it. */
  CAMPO_NO_CORRESPONDE: { status: 422, message: 'Un campo enviado no corresponde a este tipo de comprobante (campo indica cuál): quítelo.' },
  TOTALES_INVALIDOS: { status: 422, message: 'Los totales no se pueden calcular con los datos enviados.' },
  XML_INVALIDO: { status: 422, message: 'El comprobante no cumple el esquema XSD de DGI.' },
  SIN_CERTIFICADO: { status: 422, message: 'La empresa no tiene un certificado de firma activo: importe uno con POST /api/v1/empresa/importarCertificado (idEmpresa, clave y el archivo .p12/.pfx; el primero queda activo) o active uno ya importado con POST /api/v1/empresa/asignarCertificado.' },
  LIMITE_MENSUAL_EXCEDIDO: { status: 429, message: 'La empresa alcanzó su límite mensual de comprobantes.' },
  IDEMPOTENCIA_CONFLICTO: { status: 409, message: 'La Idempotency-Key ya se usó con otra solicitud distinta; use una clave nueva.' },
  FIRMA_XML_INVALIDA: { status: 422, message: 'El XML enviado no se pudo firmar.' },
  /** BRIEF 2.2, 2.9, 3: the CFE is signed with the company's certificate and CAE, so RUCEmisor must be the company's RUT. */
  EMISOR_RUC_DISTINTO: { status: 422, message: 'El RUT del emisor (emisor.ruc) no es el RUT de la empresa: omítalo o envíe el RUT de la empresa.' },
  /** BRIEF 2.4 B-C24: MontoItem = Cantidad × PrecioUnitario − DescuentoMonto + RecargoMnt (0 with IndFact 5). */
  MONTO_ITEM_INCORRECTO: { status: 422, message: 'El montoItem de una línea no coincide con cantidad × precioUnitario − descuento + recargo: corríjalo u omítalo para que se calcule.' },
  /** BRIEF 2.4 (PrecioUnitario > 0; 0 with IndFact 5; ≥ 0 with IndFact 8) and 2.6. */
  PRECIO_UNITARIO_INVALIDO: { status: 422, message: 'El precioUnitario de una línea no es válido: debe ser mayor que 0 (0 solo en entregas gratuitas, indicadorFacturacion 5).' },
  /** BRIEF 2.5: GTIN8/12/13/14 codes have a check digit that DGI validates. */
  CODIGO_ITEM_INVALIDO: { status: 422, message: 'El código GTIN de una línea (codigoItem) no es válido: revise la cantidad de dígitos y el dígito verificador.' },
  /** BRIEF 2.8: a global reference (IndGlobal = 1) carries no TpoDocRef, Serie, NroCFERef, FechaCFEref, MntCFEref, TpoMonedaRef nor TpoCambioRef. */
  REFERENCIA_GLOBAL_CON_DATOS: { status: 422, message: 'Una referencia global (indicadorGlobal = 1) no debe indicar tipoCfe, serie, numero, fecha, monto, tipoMoneda ni tipoCambio: envíe solo la razon, o quite indicadorGlobal.' },
  /** BRIEF 2.8: FechaCFEref, when present, must equal the referenced CFE's date (checked when the referenced CFE is one of ours). */
  REFERENCIA_FECHA_DISTINTA: { status: 422, message: 'La fecha de una referencia no coincide con la fecha de emisión del comprobante referenciado: corríjala u omítala.' },
  /** BRIEF 2.8 / E12: DGI rejects a reference to a CFE that is not in its records, as one it rejected is not. */
  REFERENCIA_RECHAZADA_DGI: { status: 422, message: 'El comprobante referenciado fue rechazado por DGI y no puede referenciarse: referencie el comprobante que lo reemplazó.' },
  /** BRIEF 2.8: TpoCambioRef is required when TpoMonedaRef is not UYU. */
  REFERENCIA_TIPO_CAMBIO_REQUERIDO: { status: 422, message: 'Una referencia en moneda extranjera (tipoMoneda distinta de UYU) debe indicar el tipoCambio del comprobante referenciado.' },
  /** BRIEF 2.8: TpoMonedaRef and TpoCambioRef must be the referenced CFE's (checked when it is one of ours). */
  REFERENCIA_MONEDA_DISTINTA: { status: 422, message: 'La moneda o el tipo de cambio de una referencia no son los del comprobante referenciado.' },
  /** BRIEF 2.8: 0 ≤ MntCFEref ≤ MntPagar of the referenced CFE (checked when it is one of ours). */
  REFERENCIA_MONTO_EXCEDE: { status: 422, message: 'El monto de una referencia supera el monto a pagar del comprobante referenciado.' },
  /** BRIEF 2.1, 2.7: with IndCobPropia = 1 the DscRcgGlobal zone is forbidden. */
  COBRANZA_PROPIA_DESCUENTOS: { status: 422, message: 'Un comprobante de cobranza propia (indCobPropia = 1) no admite descuentos ni recargos globales (descuentosRecargos).' },
  /** BRIEF 2.10: cuenta-ajena sales (131-133, 141-143) carry Compl_Fiscal unless SecProf = 2. */
  COMPLEMENTO_FISCAL_REQUERIDO: { status: 422, message: 'Un comprobante de venta por cuenta ajena requiere complementoFiscal con los datos del mandante.' },
  /** BRIEF 2.10: Compl_Fiscal only on cuenta-ajena sales and e-Boleta with IndCompraMEReventa = 2. */
  COMPLEMENTO_FISCAL_NO_CORRESPONDE: { status: 422, message: 'complementoFiscal (datos del mandante) solo corresponde a ventas por cuenta ajena (131-133, 141-143) y e-Boletas con indCompraMEReventa = 2: quítelo.' },
  /** BRIEF 1, A-C126: CantLinDet equals the number of detail lines. */
  CANTIDAD_LINEAS_DISTINTA: { status: 422, message: 'totales.cantLinDet no coincide con la cantidad de líneas de detalle: corríjalo u omítalo para que se calcule.' },
  /** BRIEF 2.4 A-C118/A-C123: the rate of IndFact 4 (otra tasa / fictos) is not in the request, so those totals cannot be computed. */
  OTRA_TASA_SIN_TOTALES: { status: 422, message: 'Las líneas con indicadorFacturacion 4 (otra tasa / IVA sobre fictos) requieren enviar cfe.totales con los montos calculados (mntNetoIVAOtra, mntIVAOtra, mntTotal, mntPagar).' },
});
