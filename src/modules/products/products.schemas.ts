/** Products, variants, lots and serials (not in the spec's endpoint list: issue 4, spec 2.1 idVariante, 2.4 rule 3). */
import { z } from 'zod';
import { calendarDate } from '../../platform/http/dates.js';
import { flag01, pagedResponse, pagingQuery } from '../../platform/http/paging.js';
import { PG_INT_MAX } from '../../lib/pg-int.js';
import { companyRef } from '../../platform/http/company-refs.js';
import { dgiDecimal, dgiText } from '../../platform/http/dgi-fields.js';
import { ALLOWED_IND_FACT } from '../emission/index.js';

const ymd = calendarDate;
const id = z.number().int().positive().max(PG_INT_MAX);
/** Decimal as a string in answers (numeric column, never a JS float); accepted as string or number. */
// What a line with idVariante signs (issue 28 points 3-4): DGI's limits at the door, from the XSD.
const price = dgiDecimal('PrecioUnitarioType').describe('Unit price (PrecioUnitario) as a decimal string, e.g. "1250.50": 0..99999999999.999999 with at most 6 decimals (DGI PrecioUnitarioType); more is a 400, never rounded');
const unit = dgiText('UniMedType', { required: true }).describe('DGI UniMed (≤ 4 characters), e.g. "N/A", "kg", "lt", "unid"');
const IND_FACT = [...new Set(Object.values(ALLOWED_IND_FACT).flat())].sort((a, b) => a - b);

const productFields = {
  codigo: dgiText('CodItemType', { required: true }).describe('Product code, unique in the company (CodItem, ≤ 35 characters)'),
  nombre: dgiText('NomItemType', { required: true }).describe('NomItem (≤ 80 characters; trimmed, blank refused)'),
  descripcion: z.string().max(1000).nullable().optional().describe('DscItem'),
  unidadMedida: unit.nullable().optional(),
  indicadorFacturacion: z.number().int().refine((v) => IND_FACT.includes(v), `debe ser un indicador de facturación de DGI (${IND_FACT.join(', ')})`).nullable().optional().describe(`Default IndFact of the lines that sell it (DGI IndFact: ${IND_FACT.join(', ')})`),
  requiereLote: z.boolean().default(false).describe('Every line selling it must carry datosTrazabilidad.id_lote (spec 2.4 rule 3)'),
  requiereSerie: z.boolean().default(false).describe('Every line selling it must carry datosTrazabilidad.id_serie; both flags = both ids'),
  habilitado: z.boolean().default(true),
};
export const createProductBody = z.object({ idEmpresa: id, ...productFields });
export const editProductBody = z.object({
  idProducto: companyRef(id, 'producto', { anchor: true }),
  codigo: productFields.codigo.optional(), nombre: productFields.nombre.optional(), descripcion: productFields.descripcion,
  unidadMedida: productFields.unidadMedida, indicadorFacturacion: productFields.indicadorFacturacion,
  requiereLote: z.boolean().optional(), requiereSerie: z.boolean().optional(), habilitado: z.boolean().optional(),
});
export const productView = z.object({
  id: z.number().int(), idEmpresa: z.number().int(), codigo: z.string(), nombre: z.string(), descripcion: z.string().nullable(),
  unidadMedida: z.string().nullable(), indicadorFacturacion: z.number().int().nullable(),
  requiereLote: z.boolean(), requiereSerie: z.boolean(), habilitado: z.boolean(),
});
export const productListQuery = pagingQuery.extend({
  idEmpresa: z.coerce.number().int().positive(),
  nombre: z.string().max(80).optional().describe('Part of the name (case-insensitive)'),
  codigo: z.string().max(35).optional().describe('Part of the code (case-insensitive)'),
  habilitado: flag01.optional().describe('1 only enabled, 0 only disabled; omitted all'),
});
export const productsPage = pagedResponse(productView);

const variantFields = {
  codigo: dgiText('CodItemType', { required: true }).describe('Variant code, unique in the product; the CodItem (INT1) of the lines that sell it'),
  nombre: dgiText('NomItemType', { required: true }).describe('NomItem of the lines that sell it (≤ 80 characters)'),
  precioUnitario: price.nullable().optional(),
  unidadMedida: unit.nullable().optional().describe('DGI UniMed of the variant; null = the product\'s'),
  habilitado: z.boolean().default(true),
};
export const createVariantBody = z.object({ idProducto: companyRef(id, 'producto', { anchor: true }), ...variantFields });
export const editVariantBody = z.object({
  idVariante: companyRef(id, 'variante', { anchor: true }), codigo: variantFields.codigo.optional(), nombre: variantFields.nombre.optional(), precioUnitario: variantFields.precioUnitario,
  unidadMedida: variantFields.unidadMedida, habilitado: z.boolean().optional(),
});
export const variantView = z.object({
  id: z.number().int().describe('idVariante of the emission lines'), idEmpresa: z.number().int(), idProducto: z.number().int(), codigo: z.string(), nombre: z.string(),
  precioUnitario: z.string().nullable(), unidadMedida: z.string().nullable().describe('Effective unit: the variant\'s, else the product\'s'),
  unidadMedidaPropia: z.string().nullable(), habilitado: z.boolean(),
});
export const variantsPage = pagedResponse(variantView);

export const lotBody = z.object({ codigo: z.string().trim().min(1).max(50).describe('Lot code, unique in the variant'), fechaVencimiento: ymd.nullable().optional() });
export const lotView = z.object({ id: z.number().int().describe('id_lote of datosTrazabilidad'), idVariante: z.number().int(), codigo: z.string(), fechaVencimiento: z.string().nullable() });
export const lotsPage = pagedResponse(lotView);
export const serialBody = z.object({ numeroSerie: z.string().trim().min(1).max(100).describe('Serial number, unique in the variant'), idLote: companyRef(id, 'lote').nullable().optional().describe('Lot of the same variant the unit belongs to') });
export const serialView = z.object({ id: z.number().int().describe('id_serie of datosTrazabilidad'), idVariante: z.number().int(), numeroSerie: z.string(), idLote: z.number().int().nullable() });
export const serialsPage = pagedResponse(serialView);

export const idParams = z.object({ id: z.coerce.number().int().positive() });
/** A variant's routes: the variant is the resource the request acts on (its lots and serials). */
export const variantParams = z.object({ id: companyRef(z.coerce.number().int().positive(), 'variante', { anchor: true }) });
export const listQuery = pagingQuery.extend({ q: z.string().max(100).optional().describe('Part of the code / serial number') });
