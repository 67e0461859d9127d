/**
 * DGI's limits at the door (issue 28 point 3): the facets of a named simple type of DGI's CFE
 * schemas (DGITypes.xsd, CFEType.xsd), read from the model the proving validator compiles
 * (xsd-model.ts) so that what the API accepts when data is saved and what the XSD accepts when the
 * CFE is signed cannot drift. `xsdProblem` words a value's first broken facet in Spanish.
 */
import { FixedDecimal } from '../../lib/fixed-decimal.js';
import type { Builtin } from './xsd-model.js';
import { schemaModel } from './xsd.js';

const DGICFE = 'http://cfe.dgi.gub.uy';

export interface XsdLimit {
  name: string;
  builtin: Builtin;
  totalDigits?: number;
  fractionDigits?: number;
  minInclusive?: string;
  maxInclusive?: string;
  minExclusive?: string;
  maxExclusive?: string;
  length?: number;
  minLength?: number;
  maxLength?: number;
  enumeration?: readonly string[];
  patterns: readonly RegExp[];
}

const cache = new Map<string, XsdLimit>();

/** The facets of DGI simple type `name` (e.g. 'TipCambioType'); each derivation step narrows the one before. */
export function xsdLimit(name: string): XsdLimit {
  const cached = cache.get(name);
  if (cached) return cached;
  const type = schemaModel('CFE').simpleTypes.get(`{${DGICFE}}${name}`);
  if (!type || type.unsupported) throw new Error(`DGI simple type ${name} is not in the compiled XSD model${type?.unsupported ? ` (${type.unsupported})` : ''}`);
  const limit: XsdLimit = { name, builtin: type.builtin, patterns: [] };
  for (const step of type.steps) {
    const { patterns, enumeration, ...facets } = step;
    Object.assign(limit, facets);
    if (enumeration) limit.enumeration = enumeration;
    if (patterns) limit.patterns = [...limit.patterns, ...patterns];
  }
  cache.set(name, Object.freeze(limit));
  return limit;
}

/** Significant decimals and digits as XSD counts them ("1.50": 1 decimal; "0.05": 1 digit). */
function digitsOf(s: string): { fraction: number; total: number } {
  const body = s.replace(/^[+-]/, '');
  const [whole = '', frac = ''] = body.split('.');
  const f = frac.replace(/0+$/, '');
  const w = whole.replace(/^0+/, '');
  return { fraction: f.length, total: w.length ? w.length + f.length : f.replace(/^0+/, '').length };
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;
const sign = (a: string, b: string): bigint => FixedDecimal.from(a).minus(b).coefficient;

/** The first facet of `limit` that `value` breaks, as a Spanish phrase ("admite como máximo 3 decimales"); undefined when valid. */
export function xsdProblem(limit: XsdLimit, value: string): string | undefined {
  if (limit.builtin === 'decimal' || limit.builtin === 'integer' || limit.builtin === 'int' || limit.builtin === 'positiveInteger' || limit.builtin === 'nonNegativeInteger') {
    if (!DECIMAL.test(value)) return 'no es un número decimal';
    const d = digitsOf(value);
    const decimals = limit.builtin === 'decimal' ? limit.fractionDigits : 0;
    if (decimals !== undefined && d.fraction > decimals) return decimals === 0 ? 'no admite decimales' : `admite como máximo ${decimals} decimales`;
    if (limit.totalDigits !== undefined && d.total > limit.totalDigits) return `admite como máximo ${limit.totalDigits} dígitos`;
    const low = limit.minInclusive ?? limit.minExclusive;
    const high = limit.maxInclusive ?? limit.maxExclusive;
    const below = limit.minInclusive !== undefined ? sign(value, limit.minInclusive) < 0n : limit.minExclusive !== undefined && sign(value, limit.minExclusive) <= 0n;
    const above = limit.maxInclusive !== undefined ? sign(value, limit.maxInclusive) > 0n : limit.maxExclusive !== undefined && sign(value, limit.maxExclusive) >= 0n;
    if (below || above) {
      if (low !== undefined && high !== undefined) return `debe estar entre ${low} y ${high}`;
      return low !== undefined ? `debe ser ${limit.minInclusive !== undefined ? 'mayor o igual' : 'mayor'} que ${low}` : `debe ser ${limit.maxInclusive !== undefined ? 'menor o igual' : 'menor'} que ${high}`;
    }
  } else {
    const length = [...value].length; // XSD counts characters (code points)
    if (limit.length !== undefined && length !== limit.length) return `debe tener ${limit.length} caracteres`;
    if (limit.minLength !== undefined && length < limit.minLength) return `debe tener al menos ${limit.minLength} caracteres`;
    if (limit.maxLength !== undefined && length > limit.maxLength) return `admite como máximo ${limit.maxLength} caracteres`;
  }
  if (limit.enumeration && !limit.enumeration.includes(value)) {
    return limit.enumeration.length <= 12 ? `debe ser uno de ${limit.enumeration.join(', ')}` : 'no es un valor de la tabla de DGI';
  }
  if (limit.patterns.length && !limit.patterns.some((p) => p.test(value))) return 'no tiene el formato que DGI admite';
  return undefined;
}

/** A one-line description of the limit for OpenAPI ("DGI TipCambioType: 3 decimals, 7 digits, 0.001..9999.999"). */
export function describeLimit(limit: XsdLimit): string {
  const parts: string[] = [];
  if (limit.fractionDigits !== undefined) parts.push(`${limit.fractionDigits} decimals`);
  if (limit.totalDigits !== undefined) parts.push(`${limit.totalDigits} digits`);
  const low = limit.minInclusive ?? limit.minExclusive;
  const high = limit.maxInclusive ?? limit.maxExclusive;
  if (low !== undefined || high !== undefined) parts.push(`${low ?? ''}..${high ?? ''}`);
  if (limit.maxLength !== undefined) parts.push(`≤ ${limit.maxLength} characters`);
  if (limit.length !== undefined) parts.push(`${limit.length} characters`);
  if (limit.enumeration) parts.push(limit.enumeration.length <= 12 ? `one of ${limit.enumeration.join(', ')}` : 'a value of DGI\'s table');
  return `DGI ${limit.name}: ${parts.join(', ')}`;
}
