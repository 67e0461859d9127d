/**
 * The receiver's document (TipoDocRecep, CodPaisRecep, DocRecep/DocRecepExt) as DGI checks it,
 * BRIEF 1 (FCFE A-C60..A-C62): RUT (2) and C.I. (3) carry a check digit; types 1-3 are Uruguayan
 * (CodPaisRecep UY); DNI (6) exists only for Argentina, Brazil, Chile and Paraguay. One rule for
 * every place that stores or emits a receiver: customers on create/edit, emission on each CFE.
 */
import { isValidCi, rutProblem } from './rut.js';

export const DNI_COUNTRIES: readonly string[] = ['AR', 'BR', 'CL', 'PY'];

/** Why the document is not acceptable (Spanish, for the API), or undefined when it is. */
export function receiverDocumentProblem(tipo: number, codPais: string, documento: string): string | undefined {
  if (tipo === 2) {
    const problem = rutProblem(documento);
    if (problem) return `El RUT ${documento} no es válido: ${problem}`;
  }
  if (tipo === 3 && !isValidCi(documento)) return `La cédula ${documento} no es válida: revise el dígito verificador.`;
  if (tipo <= 3 && codPais !== 'UY') return `Los documentos de tipo 1 a 3 (NIE, RUT, C.I.) son uruguayos: codPais debe ser UY (se envió ${codPais}).`;
  if (tipo === 6 && !DNI_COUNTRIES.includes(codPais)) {
    return `El DNI (tipoDocumento 6) solo se admite de Argentina, Brasil, Chile o Paraguay: codPais debe ser AR, BR, CL o PY (se envió ${codPais}).`;
  }
  return undefined;
}
