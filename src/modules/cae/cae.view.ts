/** A CAE range as the API shows it (spec 4.3 CAE): counters and state derived from the stored row. */
import type * as repo from './cae.repository.js';

export function rangeView(r: repo.CaeRangeRow, voided: number, today: string) {
  const consumed = r.nextNumber - r.dNro;
  const remaining = r.annulledAt ? 0 : r.hNro - r.nextNumber + 1;
  const vencido = r.fvd < today;
  return {
    id: r.id,
    idEmpresa: r.companyId,
    idSucursal: r.branchId,
    tipoCfe: r.tipoCfe,
    serie: r.serie,
    desde: r.dNro,
    hasta: r.hNro,
    numeroCae: r.caeNumber,
    fechaAutorizacion: r.fa,
    fechaVencimiento: r.fvd,
    caeEspecial: r.caeEspecial,
    causalCaeEspecial: r.causalCaeEsp,
    origen: r.origin,
    proximoNumero: remaining > 0 ? r.nextNumber : null,
    utilizados: consumed - voided,
    anulados: voided,
    disponibles: vencido ? 0 : remaining,
    vencido,
    anulado: r.annulledAt !== null,
    estado: r.annulledAt ? ('anulado' as const) : vencido ? ('vencido' as const) : remaining === 0 ? ('agotado' as const) : ('vigente' as const),
  };
}
export type CaeRangeView = ReturnType<typeof rangeView>;
