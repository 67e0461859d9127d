/**
 * DGI's motive codes and glosas (BRIEF 6 and 8): the ACK glosas are the XSD enumeration values verbatim
 * (DGITypes.xsd RechazoSobreType and the ACK types), with codes per FMR v19 §4 (the XSD comments carry an
 * older, shifted E-code table: BRIEF §6). Used by the simulated DGI and by our answers as a receiver.
 */
export const DGI_GLOSAS: Readonly<Record<string, string>> = {
  S01: 'Formato del archivo no es el indicado',
  S02: 'No coincide RUC de Sobre, Certificado, envío o CFE',
  S03: 'Certificado electrónico no es válido',
  S04: 'No cumple validaciones según Formato de sobre',
  S05: 'No coinciden cantidad CFE de carátula y contenido',
  S06: 'No coinciden certificado de sobre y comprobantes',
  S07: 'Sobre enviado supera el tamaño máximo admitido',
  S08: 'Sobre enviado ya existe en los registros de DGI',
  S20: 'Sobre enviado ya existe en los registros del receptor',
  E01: 'Tipo y Nº de CFE ya fue reportado como anulado',
  E02: 'Tipo y Nº de CFE ya existe en los registros',
  E03: 'Tipo y Nº de CFE no se corresponden con el CAE',
  E04: 'Firma electrónica no es válida',
  E05: 'No cumple validaciones de Formato comprobantes',
  E06: 'Importe informado en el CFE excede montos habituales',
  E07: 'Fecha Firma de CFE no se corresponde con fecha CAE',
  E08: 'No coincide RUC de CFE y Complemento Fiscal',
  E09: 'RUC emisor y/o tipo de CFE no se corresponden con el CAE',
  E10: 'Tipo de cambio no válido',
  E11: 'Tipo de CAE especial del CFE no se corresponde con el CAE',
  E12: 'Información en Zona de Referencia no existe en los registros',
  E13: 'Tipo de CAE  del CFE  no se corresponde con el CAE utilizado', // double spaces: XSD verbatim
  E14: 'Irregularidades detectadas',
  E15: 'Deudor contumaz sin informar situación',
  C03: 'Constancia no autorizada según registros',
  C04: 'Firma electrónica no es válida',
  C05: 'No cumple validaciones de Formato comprobantes',
  C06: 'Importe informado en el CFE excede montos habituales',
  C10: 'Tipo de cambio no válido',
  C14: 'Irregularidades detectadas',
  R01: 'Formato del archivo no es el indicado',
  R02: 'No coincide RUC en Reporte, Certificado o envío',
  R03: 'Firma o Certificado electrónicos no son válidos',
  R04: 'No cumple validaciones según Formato de Reporte',
  R05: 'La secuencia indicada en el reporte no es correcta',
  R06: 'Fecha recepción no puede ser menor a fecha resumen',
};

/**
 * Commercial motives a receiver may give per CFE (BRIEF 8, FMR): E20-E26 with fixed names; E27-E60 are
 * agreed between the parties (the receiver writes the glosa).
 */
export const RECEIVER_COMMERCIAL_MOTIVES: Readonly<Record<string, string>> = {
  E20: 'Orden de compra vencida',
  E21: 'Mercadería en mal estado',
  E22: 'Proveedor inhabilitado',
  E23: 'Contraprestación no recibida',
  E24: 'Diferencia precios y/o descuentos',
  E25: 'Factura con error cálculos',
  E26: 'Diferencia con plazos',
};

/** E27-E60: agreed between the parties; the company writes the glosa. */
export const isAgreedMotive = (code: string) => /^E(2[7-9]|[3-5]\d|60)$/.test(code);
