/**
 * Receiver resolution (spec 2.3 rules 3-5): idCliente of the same company, else a local customer by
 * document, else (RUT only, when no name was sent) DGI's RUT lookup. Runs before the transaction.
 */
import type { Receptor } from '../emission/index.js';
import { errors } from '../../lib/errors.js';
import { DgiError } from '../dgi/dgi.errors.js';
import { issuedCfeErrors as E } from './issued-cfe.errors.js';
import type { CustomerRecord, IssuedCfePorts } from './issued-cfe.ports.js';
import type { CfeBody } from './issued-cfe.schemas.js';
import { checkDocument, cutChars as cut, guessDocumentType } from './issued-cfe.rules.js';

function fromCustomer(c: CustomerRecord, sent: NonNullable<CfeBody['receptor']>): Receptor {
  const local = c.tipoDocumento <= 3;
  return {
    TipoDocRecep: c.tipoDocumento,
    CodPaisRecep: c.codPais,
    DocRecep: local ? c.documento : undefined,
    DocRecepExt: local ? undefined : c.documento,
    RznSocRecep: cut(c.razonSocial, 150),
    DirRecep: cut(c.direccion ?? sent.direccion, 70),
    CiudadRecep: cut(c.ciudad ?? sent.ciudad, 30),
    DeptoRecep: cut(c.departamento ?? sent.departamento, 30),
    PaisRecep: cut(c.pais ?? sent.pais, 30),
    CP: cut(c.codigoPostal ?? sent.codigoPostal, 10),
    CompraID: sent.compraId,
  };
}

export interface ResolvedReceptor {
  receptor?: Receptor;
  customerId?: number;
}

export async function resolveReceptor(ports: IssuedCfePorts, companyId: number, sent: CfeBody['receptor']): Promise<ResolvedReceptor> {
  if (!sent) return {};
  if (sent.idCliente !== undefined) {
    // Spec 5.4: another company's customer answers exactly like a missing one.
    const c = await ports.customerById(companyId, sent.idCliente);
    if (!c || c.companyId !== companyId) throw E.CLIENTE_RECEPTOR_NO_ENCONTRADO();
    return { receptor: fromCustomer(c, sent), customerId: c.id };
  }
  if (!sent.documento) {
    // BRIEF 1: the e-Ticket receiver may be a name alone (the type rules, checkReceptor, refuse it where a
    // document is required). A document type or country without the document would be dropped: refused.
    if (sent.tipoDocumento !== undefined || sent.codPais !== undefined) throw E.DOCUMENTO_RECEPTOR_INVALIDO('receptor.tipoDocumento y receptor.codPais acompañan a receptor.documento: envíe el documento o quítelos.');
    const named = sent.razonSocial || sent.direccion || sent.ciudad || sent.departamento || sent.pais || sent.codigoPostal || sent.compraId;
    return { receptor: named ? { RznSocRecep: sent.razonSocial, DirRecep: sent.direccion, CiudadRecep: sent.ciudad, DeptoRecep: sent.departamento, PaisRecep: sent.pais, CP: sent.codigoPostal, CompraID: sent.compraId } : undefined };
  }
  const documento = sent.documento.trim();
  const local = await ports.customerByDocument(companyId, documento);
  if (local) return { receptor: fromCustomer(local, sent), customerId: local.id };

  const tipo = sent.tipoDocumento ?? guessDocumentType(documento);
  const codPais = sent.codPais ?? (tipo <= 3 ? 'UY' : '99');
  checkDocument(tipo, codPais, documento);
  const base: Receptor = {
    TipoDocRecep: tipo,
    CodPaisRecep: codPais,
    DocRecep: tipo <= 3 ? documento : undefined,
    DocRecepExt: tipo <= 3 ? undefined : documento,
    RznSocRecep: sent.razonSocial,
    DirRecep: sent.direccion,
    CiudadRecep: sent.ciudad,
    DeptoRecep: sent.departamento,
    PaisRecep: sent.pais,
    CP: sent.codigoPostal,
    CompraID: sent.compraId,
  };
  if (tipo !== 2 || sent.razonSocial) return { receptor: base };

  // Spec 2.3 rules 4-5: a RUT with no local customer and no name sent is completed from DGI.
  let info;
  try {
    info = await ports.lookupRut(companyId, documento);
  } catch (err) {
    if (err instanceof DgiError) throw errors.SERVICIO_NO_DISPONIBLE('No se pudo consultar a DGI los datos del RUT receptor; reintente o envíe receptor.razonSocial.');
    throw err;
  }
  const name = info?.Denominacion?.trim();
  if (!info || !name || ['CC', 'CH', 'NT'].includes(info.EstadoActividad)) throw E.RUT_RECEPTOR_NO_RESUELTO();
  const a = info.address;
  const street = a ? [a.street, a.number].filter(Boolean).join(' ') : undefined;
  return {
    receptor: {
      ...base,
      RznSocRecep: cut(name, 150),
      DirRecep: base.DirRecep ?? cut(street || undefined, 70),
      CiudadRecep: base.CiudadRecep ?? cut(a?.city, 30),
      DeptoRecep: base.DeptoRecep ?? cut(a?.department, 30),
    },
  };
}
