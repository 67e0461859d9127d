/**
 * Lines linked to a product variant (spec 2.1 `idVariante`; issue 28 point 4): what the line leaves
 * out is taken from the variant and its product (name, unit, price, billing indicator, internal
 * code); what the line sends wins. Lines without idVariante use the manual fields (spec 2.4 rule 6).
 */
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { VariantLine } from './issued-cfe.ports.js';
import type { CfeBody, DetalleBody } from './issued-cfe.schemas.js';

/** PrecioUnitarioType (DGITypes.xsd): at most 6 decimals, 17 digits. */
const PRICE = /^\d{1,11}(\.\d{1,6})?$/;

/** The body with each variant line completed; `variants` holds one entry per line with idVariante, in order. */
export function fillFromVariants(cfe: CfeBody, variants: VariantLine[]): CfeBody {
  let next = 0;
  const detalles = cfe.detalles.map((d, i): DetalleBody => {
    if (!d.idVariante) return d;
    const v = variants[next++]!;
    const out: DetalleBody = { ...d };
    out.nombreItem ??= v.nombre;
    if (out.unidadMedida === undefined && v.unidadMedida) out.unidadMedida = v.unidadMedida;
    if (out.indicadorFacturacion === undefined && v.indicadorFacturacion != null) out.indicadorFacturacion = v.indicadorFacturacion;
    if (out.codigoItem === undefined) out.codigoItem = [{ tpoCod: 'INT1', cod: v.codigo }];
    if (out.precioUnitario === undefined && v.precioUnitario != null && out.indicadorFacturacion !== 5) {
      // Stored before DGI's limits were checked at the door: refused here, never as XML_INVALIDO.
      if (!PRICE.test(v.precioUnitario)) {
        throw E.LINEA_INCOMPLETA(`Línea ${d.numeroLineaDetalle ?? i + 1}: el precio ${v.precioUnitario} de la variante ${v.codigo} excede lo que DGI admite (6 decimales, 17 dígitos): envíe precioUnitario.`, { campo: `cfe.detalles.${i}.precioUnitario` });
      }
      out.precioUnitario = v.precioUnitario;
    }
    return out;
  });
  return { ...cfe, detalles };
}
