import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorBody, errorResponses } from '../../platform/http/error-body.js';
import { requireActor } from '../../platform/http/tenancy.js';
import type { Lookups } from '../lookups/lookups.service.js';
import * as s from './issued-cfe.schemas.js';
import { issuedCfeDetailResponse, issuedCfeResponse } from './issued-cfe.response.js';
import type { IssuedCfeService } from './issued-cfe.service.js';

export const EMITIR_DESCRIPTION = `Issues a CFE (spec 4.1, rules 2.2-2.4): validates, numbers (CAE), builds the DGI XML, signs it (XMLDSig rsa-sha256, enveloped, inclusive C14N, X509IssuerSerial), validates it against DGI's XSD 1.44.2 and stores it, in one transaction.

**Request fields not named by the spec** (DGI names in lowerCamel): \`idDoc.mntBruto\` (1 = prices include VAT), \`idDoc.fechaVencimiento\`, \`idDoc.clauVenta\`/\`modVenta\`/\`viaTransp\` (export), \`idDoc.tipoTraslado\` (remitos), \`idDoc.fchValor\` (resguardos); \`totales.mntNoGrv … mntPagar\` (any amount present = totals used as sent; only \`tipoMoneda\`/\`tipoCambio\` or \`{}\` = computed from detalles); \`detalles[].descuentoPct/descuentoMonto/recargoPct/recargoMnt/codigoItem/retencPercep\`; \`descuentosRecargos\` (DscRcgGlobal), \`mediosPago\`, \`complementoFiscal\` (cuenta ajena), \`adenda\`.
**Reference entries** (\`referencias[]\`): \`indicadorGlobal\` (1 = global; then \`razon\` required and nothing else), \`tipoCfe\`, \`serie\`, \`numero\` (the referenced receipt), \`razon\`, \`fecha\` (FechaCFEref), and the Formato v25 fields \`monto\` (MntCFEref, 0 .. the referenced MntPagar), \`tipoMoneda\` (TpoMonedaRef) and \`tipoCambio\` (TpoCambioRef, required when tipoMoneda is not UYU). When the referenced receipt is one the company issued here, \`fecha\`, \`monto\`, \`tipoMoneda\` and \`tipoCambio\` are checked against it and a receipt DGI rejected (other than E02) cannot be referenced; references to receipts issued elsewhere are left to DGI.
**Receiver**: \`idCliente\` (same company) or \`documento\` (+ optional \`tipoDocumento\`, \`codPais\`, \`razonSocial\`…): local customer first; a RUT without local customer and without \`razonSocial\` is completed from DGI's RUT service.
**Free text** (every string of the body: names, descriptions, addresses, glosas, \`razon\`, \`adenda\`…; DGI types them as plain strings, so line breaks are allowed): CR LF and a lone CR are stored and signed as a line feed (LF), since XML 1.0 reads a raw CR as LF and a receipt must never be signed with text a reader on the way to DGI would read differently; tabs and any other Unicode text are kept as sent. Refused with 400 VALIDACION naming the field in \`campos\`: control characters other than tab/LF/CR (C0, DEL, C1 U+0080-U+009F such as U+0085) and the Unicode line/paragraph separators U+2028/U+2029 (XML 1.1 and common XML libraries read them as line ends): send LF instead. Length limits count the text as sent.
**Sent totales are checked, not recalculated** (spec 2.3 rule 1, BRIEF 2.4): every DGI equation a sent field takes part in (A-C112..A-C118 against the lines, A-C119/A-C120 rates 10 and 22, a base without its rate, A-C121/A-C122 VAT = base × rate within one cent, A-C118 net and VAT of the other rate together, A-C124 \`mntTotal\` = exact sum of its components, A-C125/A-C128 retentions, A-C129 \`montoNF\`, A-C130 \`mntPagar\`; with \`mntBruto\` 1 a net base may differ from the VAT-inclusive lines by one cent per line): a broken one is 422 TOTALES_DESCUADRADOS with \`ecuacion\` (Formato id) and \`valores\`, before anything is numbered; the totals are then written exactly as sent.
**Lines with \`idVariante\`** (spec 2.1): \`nombreItem\`, \`unidadMedida\`, \`precioUnitario\`, \`indicadorFacturacion\` and \`codigoItem\` (INT1 = the variant's code) left out are taken from the variant and its product; what the line sends wins. A field still missing is 422 LINEA_INCOMPLETA with \`campo\` (e.g. \`cfe.detalles.0.cantidad\`).
**Decisions on borderline input** (issue 28): unknown fields → 400 CAMPO_DESCONOCIDO naming each path; \`cantidad\` 0 or -0 → 400 (a line that sells nothing), negative → accepted (DGI: removes an item of the same CFE); \`nombreItem\` of only spaces → 400 (NomItem must be non-empty; outer spaces are trimmed); \`numeroLineaDetalle\` other than the line's position → 422 LINEA_NUMERO_INVALIDO (DGI numbers NroLinDet 1..n, B-C1; never silently renumbered); \`totales.tipoCambio\` beyond TipCambioType (more than 3 decimals, e.g. 39.5001, or above 9999.999) → 400, never rounded (spec 2.3 rule 7: used as sent; only table and central-bank rates are rounded to 3 decimals); \`idDoc.mntBruto\` on e-Remito / e-Resguardo, 3 on an export invoice, or 2 (IMEBA included) without sent totales outside the e-Boleta → 422 MONTO_BRUTO_INVALIDO; 3 (IVA mínimo / Monotributo) is accepted with the indicators BRIEF 2.6 allows (DGI requires such an issuer's special CAE); a receiver with only a name is signed with it on an e-Ticket below 5,000 UI (BRIEF 1) and refused where the type needs a document; \`tipoDocumento\`/\`codPais\` without \`documento\` → 422 DOCUMENTO_RECEPTOR_INVALIDO; \`receptor.codigoPostal\` must be DGI's integer CP (≤ 5 digits). Every idDoc code is held to its DGI table (\`modVenta\`, \`viaTransp\`, \`ivaAlDia\`, \`secProf\`, \`indPagCta3ros\`, \`indCobPropia\`, \`indCompraMEReventa\`: 400); an idDoc field the type's IdDoc lacks (e.g. \`clauVenta\` on an e-Ticket, \`formaPago\` on an e-Remito) or discounts / payment means on a type without that zone → 422 CAMPO_NO_CORRESPONDE with \`campo\`; totals DGI wants ≥ 0 (MontoType) that come out negative (a negative quantity larger than what it takes back) → 422 TOTALES_INVALIDOS, sent → 422 TOTALES_DESCUADRADOS (ecuacion MontoType).
**Idempotency-Key** header (optional): a repeated key of the same company returns the original receipt (header \`Idempotent-Replayed: true\`), also under concurrent duplicates; the same key with a different body is 409 IDEMPOTENCIA_CONFLICTO.

**Response 200** (JSON): \`id\`, \`idEmpresa\`, \`idSucursal\`, \`idPuntoEmision\`, \`tipoCfe\`, \`nombreTipoCfe\`, \`serie\`, \`numero\`, \`fechaEmision\`, \`fechaFirma\` (TmstFirma), \`estado\` (\`firmado\`), \`cae\` {\`numero\`, \`desde\`, \`hasta\`, \`fechaVencimiento\`}, \`codigoSeguridad\` (6 chars), \`hash\` (DigestValue), \`urlQr\` (DGI consultaQR format), \`qrPng\` (PNG base64), \`moneda\`, \`tipoCambio\`, \`totales\` (DGI Totales names, in XML order), and what the receipt prints, as signed and with DGI names: \`idDoc\` (IdDoc: FmaPago, FchVenc, export clauses…), \`emisor\`, \`receptor\`, \`detalles\` (Item), \`descuentosRecargos\` (DRG_Item), \`mediosPago\` (MedioPago), \`referencias\`, \`complementoFiscal\` (Compl_Fiscal_Data, cuenta ajena, else null); then \`adenda\`, \`idempotencyKey\`.

**Rejections** (body \`{ error, code, requestId }\`): 400 VALIDACION / CAMPO_DESCONOCIDO (\`campos\` names each field); 422 TIPO_CFE_INVALIDO, EMISOR_RUC_DISTINTO (emisor.ruc is not the company's RUT), REFERENCIA_REQUERIDA (NC/ND without referencias), REFERENCIA_INCOMPLETA, REFERENCIA_GLOBAL_CON_DATOS (indicadorGlobal with tipoCfe/serie/numero/fecha, BRIEF 2.8), REFERENCIA_FECHA_DISTINTA (a referencia's \`fecha\` is not the date of the company's own CFE it names, BRIEF 2.8), REFERENCIA_RECHAZADA_DGI (the referenced CFE of the company was rejected by DGI, other than E02, so DGI would answer E12; references to receipts issued elsewhere are left to DGI), REFERENCIA_MONEDA_DISTINTA (tipoMoneda or tipoCambio not the referenced CFE's), REFERENCIA_MONTO_EXCEDE (monto above its MntPagar), REFERENCIA_TIPO_CAMBIO_REQUERIDO (tipoMoneda other than UYU without tipoCambio), COBRANZA_PROPIA_SIN_REFERENCIA, COBRANZA_PROPIA_INDICADOR, COBRANZA_PROPIA_DESCUENTOS (indCobPropia with descuentosRecargos, BRIEF 2.7), COMPLEMENTO_FISCAL_REQUERIDO / COMPLEMENTO_FISCAL_NO_CORRESPONDE (cuenta ajena 131-133, 141-143, BRIEF 2.10), CLIENTE_RECEPTOR_NO_ENCONTRADO (idCliente missing or of another company), RUT_RECEPTOR_NO_RESUELTO, DOCUMENTO_RECEPTOR_INVALIDO, RECEPTOR_RUC_REQUERIDO (e-Factura), RECEPTOR_REQUERIDO, RECEPTOR_REQUERIDO_TOPE_UI (e-Ticket above 5,000 UI), MONEDA_NO_EXISTE, TIPO_CAMBIO_NO_RESUELTO, TRAZABILIDAD_REQUERIDA, VARIANTE_DESHABILITADA, LOTE_INVALIDO, SERIE_INVALIDA (products module, spec 2.4 rule 3), FECHA_EMISION_FUERA_DE_RANGO (before 01/10/2011 or more than 60 days after today, BRIEF 2.1), LINEAS_FUERA_DE_RANGO, INDICADOR_FACTURACION_INVALIDO, MONTO_ITEM_INCORRECTO (montoItem ≠ cantidad × precioUnitario − descuento + recargo, BRIEF 2.4), PRECIO_UNITARIO_INVALIDO (0 on a billed line, not 0 on IndFact 5), CODIGO_ITEM_INVALIDO (GTIN check digit), CANTIDAD_LINEAS_DISTINTA (totales.cantLinDet), OTRA_TASA_SIN_TOTALES (IndFact 4 needs totales), TOTALES_DESCUADRADOS (sent totales break a DGI equation), LINEA_INCOMPLETA, LINEA_NUMERO_INVALIDO, MONTO_BRUTO_INVALIDO, CAMPO_NO_CORRESPONDE, TOTALES_INVALIDOS, XML_INVALIDO, SIN_CERTIFICADO, plus the emission-point codes of the companies module (SUCURSAL_NO_ENCONTRADA, PUNTO_EMISION_NO_ENCONTRADO, …); 409 CAE_SIN_NUMEROS, IDEMPOTENCIA_CONFLICTO; 429 LIMITE_MENSUAL_EXCEDIDO (company parameter limiteCfeMensual); 403 SIN_PERMISO (role lectura); 404 EMPRESA_NO_ENCONTRADA, VARIANTE_NO_ENCONTRADA (idVariante of another company or missing); 503 SERVICIO_NO_DISPONIBLE (DGI RUT service unreachable).`;

export function issuedCfeRoutes(service: IssuedCfeService, lookups: Lookups): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onClose', async () => lookups.close());

    // The 200 schema documents the answer; the view is sent already serialized (a string skips the
    // serializer): zod serialization costs ~40 % on the hot path (STACK 4d).
    app.post('/api/v1/comprobante/emitir', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['Comprobante'], summary: 'Issue a CFE', description: EMITIR_DESCRIPTION, body: s.issueCfeBody,
        headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }).passthrough(),
        response: { 200: issuedCfeResponse, ...errorResponses, 409: errorBody, 422: errorBody, 429: errorBody },
      },
    }, async (req, reply) => {
      requireActor(req);
      const { view, replayed } = await service.emit(req.body, req.headers['idempotency-key'] as string | undefined);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.type('application/json').send(JSON.stringify(view) as never);
    });

    app.post('/api/v1/comprobante/transcribirContingencia', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['Comprobante'], summary: 'Transcribe a paper contingency CFC (2xx)',
        description: `Not in the spec's list; designed here for issue 6 point 7 and BRIEF 10. When the electronic system was down the company issued pre-printed paper CFCs (types 2xx = electronic code + 100, e.g. 211 e-Factura, 201 e-Ticket); afterwards each one is transcribed here with the **serie and number printed on the paper** (\`cfe.idDoc.serie\`, \`cfe.idDoc.numero\`) and the rest of the emitir body (same rules, same response, same Idempotency-Key behaviour).
The number must lie in a CFC range registered with \`POST /api/v1/cae/altaCfc\` (check it first with \`GET /api/v1/cae/numeroDisponibleContingencia\`) that had not expired on \`fechaEmision\`, and can be transcribed only once. The CFC is signed with the company certificate (CAEData = the CFC constancia and range) and stored in state \`firmado\`: the submission worker sends it to DGI; it is never sent to the receiver (BRIEF 10) and is counted in the daily report's contingency blocks.
**Rejections:** every emitir code, plus 422 TIPO_CFE_INVALIDO (not a 2xx type), CFC_NUMERO_NO_DISPONIBLE (outside a registered range, range expired, or already transcribed).`,
        body: s.contingencyBody,
        headers: z.object({ 'idempotency-key': z.string().min(1).max(200).optional() }).passthrough(),
        response: { 200: issuedCfeResponse, ...errorResponses, 409: errorBody, 422: errorBody, 429: errorBody },
      },
    }, async (req, reply) => {
      requireActor(req);
      const { view, replayed } = await service.transcribeContingency(req.body, req.headers['idempotency-key'] as string | undefined);
      if (replayed) reply.header('idempotent-replayed', 'true');
      return reply.type('application/json').send(JSON.stringify(view) as never);
    });

    const getDescription = 'The issued CFE: the emitir response shape, with the current `estado` (DGI side: firmado, en_cola_dgi, sobre_recibido, sobre_rechazado, aceptado, rechazado, observado, aceptado_manual), `estadoReceptor` (receptor_pendiente/aceptado/rechazado/observado, null when the receiver is not an electronic issuer) and `historial`: every state change oldest first (`lado` dgi|receptor, `estadoAnterior`, `estado`, `codigo`, `motivos` [{codigo, glosa, detalle}], `mensaje`, `referencia` (envelope/ACK), `idUsuario` + `motivo` for manual changes, `fecha` ISO), starting with the implicit `firmado` at signing time. Another company\'s CFE answers 404 CFE_NO_ENCONTRADO.';
    app.get('/api/v1/cfeemitido/:id', {
      config: { minRole: 'lectura' },
      schema: { tags: ['CFE emitido'], summary: 'Get issued CFE by id', description: getDescription, params: s.cfeIdParams, response: { 200: issuedCfeDetailResponse, ...errorResponses } },
    }, async (req, reply) => reply.type('application/json').send(JSON.stringify(await service.get(requireActor(req), req.params.id)) as never));

    app.get('/api/v1/comprobante/getByIdCfeEmitido', {
      config: { minRole: 'lectura' },
      schema: { tags: ['Comprobante'], summary: 'Get issued CFE by id', description: getDescription, querystring: s.getByIdQuery, response: { 200: issuedCfeDetailResponse, ...errorResponses } },
    }, async (req, reply) => reply.type('application/json').send(JSON.stringify(await service.get(requireActor(req), req.query.idCfeEmitido)) as never));

    app.get('/api/v1/cfeemitido/:id/xml', {
      config: { minRole: 'lectura' },
      schema: {
        tags: ['CFE emitido'], summary: 'Download the signed CFE XML',
        description: 'The signed CFE exactly as stored (standalone document, no XML declaration, UTF-8): the bytes that go into the DGI envelope. Content-Type application/xml, as attachment.',
        params: s.cfeIdParams, response: errorResponses,
      },
    }, async (req, reply) => {
      const { xml, fileName } = await service.xml(requireActor(req), req.params.id);
      return reply.type('application/xml; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).send(xml as never);
    });

    app.post('/api/v1/comprobante/firmarXml', {
      config: { minRole: 'emisor' },
      schema: {
        tags: ['Comprobante'], summary: 'Sign a CFE XML',
        description: 'Signs a client CFE XML with the company\'s active certificate using the emission signer (canonicalized, enveloped, rsa-sha256, X509IssuerSerial) and validates the signed result against DGI\'s CFE XSD; an invalid document is refused (422 XML_INVALIDO / FIRMA_XML_INVALIDA), 422 SIN_CERTIFICADO without an active certificate. Response: `xml` (signed), `digestValue`, `codigoSeguridad`.',
        body: s.signXmlBody,
        response: { 200: z.object({ xml: z.string(), digestValue: z.string(), codigoSeguridad: z.string() }), ...errorResponses, 422: errorBody },
      },
    }, async (req) => service.signXml(req.body.idEmpresa, req.body.xml));
  };
}
