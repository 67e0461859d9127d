/**
 * Simple-type values for the proving validator: XSD 1.0 Part 2 lexical spaces of the built-ins DGI
 * uses and their facets. Every function answers "proved valid" (true) or "not proved" (false); a
 * false only sends the document to libxml2, so whatever is unusual (time zones on dates,
 * fractional seconds, leading '+', whitespace inside base64, IDs…) is simply not proved.
 */
import { isCalendarDate } from '../../lib/dates.js';
import type { FacetStep, SimpleType } from './xsd-model.js';

const DATE = /^\d{4}-\d\d-\d\d$/;
const DATE_TIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(Z|[+-]\d\d:\d\d)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=|[A-Za-z0-9+/][AQgw]==)?$/;
// RFC 3986 characters only (no spaces, no non-ASCII, % followed by two hex digits).
const URI = /^(?:[A-Za-z][A-Za-z0-9+.-]*:)?(?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$/;
const SURROGATE = /[\uD800-\uDBFF]/g;

/** A decimal as sign, integer digits without leading zeros, fraction digits without trailing zeros. */
interface Dec {
  neg: boolean;
  int: string;
  frac: string;
}

function parseDecimal(s: string): Dec | undefined {
  const n = s.length;
  let i = 0;
  const sign = s.charCodeAt(0);
  if (sign === 0x2b || sign === 0x2d) i = 1;
  const intStart = i;
  while (i < n && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
  const intEnd = i;
  let fracStart = i;
  let fracEnd = i;
  if (i < n && s.charCodeAt(i) === 0x2e) {
    fracStart = ++i;
    while (i < n && s.charCodeAt(i) >= 0x30 && s.charCodeAt(i) <= 0x39) i++;
    fracEnd = i;
  }
  if (i !== n || (intEnd === intStart && fracEnd === fracStart)) return undefined;
  let a = intStart;
  while (a < intEnd && s.charCodeAt(a) === 0x30) a++;
  let b = fracEnd;
  while (b > fracStart && s.charCodeAt(b - 1) === 0x30) b--;
  const int = s.slice(a, intEnd);
  const frac = s.slice(fracStart, b);
  return { neg: sign === 0x2d && (int !== '' || frac !== ''), int, frac };
}

function compareDec(a: Dec, b: Dec): number {
  if (a.neg !== b.neg) return a.neg ? -1 : 1;
  const sign = a.neg ? -1 : 1;
  if (a.int.length !== b.int.length) return sign * (a.int.length - b.int.length);
  if (a.int !== b.int) return sign * (a.int < b.int ? -1 : 1);
  const len = Math.max(a.frac.length, b.frac.length);
  const fa = a.frac.padEnd(len, '0');
  const fb = b.frac.padEnd(len, '0');
  return fa === fb ? 0 : sign * (fa < fb ? -1 : 1);
}

/** A real day of the calendar (the project's one rule); XSD 1.0 has no year 0000. */
const validDay = (ymd: string) => !ymd.startsWith('0000') && isCalendarDate(ymd);

/** Milliseconds since the epoch of a dateTime with an explicit zone, or undefined. */
function instant(s: string): number | undefined {
  const m = DATE_TIME.exec(s);
  if (!m) return undefined;
  const h = Number(m[4]);
  const mi = Number(m[5]);
  const se = Number(m[6]);
  if (!validDay(s.slice(0, 10)) || h > 23 || mi > 59 || se > 59) return undefined;
  let offset = 0;
  if (m[7] !== 'Z') {
    const oh = Number(m[7].slice(1, 3));
    const om = Number(m[7].slice(4, 6));
    if (oh > 14 || om > 59 || (oh === 14 && om > 0)) return undefined;
    offset = (m[7][0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), h, mi, se) - offset * 60_000;
}

// Nothing for whiteSpace replace/collapse to change.
const NORMAL = /^(?:[^ \t\n\r]+(?: [^ \t\n\r]+)*)?$/;

function normalize(type: SimpleType, raw: string): string {
  if (type.whiteSpace === 'preserve' || NORMAL.test(raw)) return raw;
  const replaced = raw.replace(/[\t\n\r]/g, ' ');
  return type.whiteSpace === 'replace' ? replaced : replaced.replace(/ {2,}/g, ' ').trim();
}

/** The value space key used by ordering facets, or undefined when it is not proved comparable. */
type Ordered = { dec: Dec } | { date: string } | { instant: number };

function ordered(type: SimpleType, value: string): Ordered | undefined {
  switch (type.builtin) {
    case 'decimal':
    case 'integer':
    case 'int':
    case 'positiveInteger':
    case 'nonNegativeInteger': {
      const dec = parseDecimal(value);
      return dec && { dec };
    }
    case 'date':
      return DATE.test(value) ? { date: value } : undefined;
    case 'dateTime': {
      const t = instant(value);
      return t === undefined ? undefined : { instant: t };
    }
    default:
      return undefined;
  }
}

function compare(a: Ordered, b: Ordered): number | undefined {
  if ('dec' in a && 'dec' in b) return compareDec(a.dec, b.dec);
  if ('date' in a && 'date' in b) return a.date === b.date ? 0 : a.date < b.date ? -1 : 1;
  if ('instant' in a && 'instant' in b) return a.instant - b.instant;
  return undefined;
}

const NUMERIC: ReadonlySet<SimpleType['builtin']> = new Set(['decimal', 'integer', 'int', 'positiveInteger', 'nonNegativeInteger']);

function equalDec(value: Dec, literal: string): boolean {
  const e = parseDecimal(literal.trim());
  return e !== undefined && compareDec(value, e) === 0;
}

const INT_MIN: Dec = { neg: true, int: '2147483648', frac: '' };
const INT_MAX: Dec = { neg: false, int: '2147483647', frac: '' };

const boundCache = new Map<string, Ordered | undefined>();

/** `value` compared with `bound` falls within [lo, hi] (-1, 0, 1); an absent bound always holds. */
function within(type: SimpleType, value: Ordered, bound: string | undefined, lo: number, hi: number): boolean {
  if (bound === undefined) return true;
  const k = `${type.builtin} ${bound}`;
  let b = boundCache.get(k);
  if (b === undefined && !boundCache.has(k)) {
    b = ordered(type, bound);
    boundCache.set(k, b);
  }
  const c = b && compare(value, b);
  if (c === undefined) return false;
  const sign = c < 0 ? -1 : c > 0 ? 1 : 0;
  return sign >= lo && sign <= hi;
}

function lexicalOk(type: SimpleType, v: string): boolean {
  switch (type.builtin) {
    case 'string':
      return true;
    case 'decimal':
      return parseDecimal(v) !== undefined;
    case 'integer':
    case 'int':
    case 'positiveInteger':
    case 'nonNegativeInteger': {
      if (!/^[+-]?\d+$/.test(v)) return false;
      const d = parseDecimal(v)!;
      if (type.builtin === 'positiveInteger') return !d.neg && d.int !== '';
      if (type.builtin === 'nonNegativeInteger') return !d.neg;
      if (type.builtin === 'int') return compareDec(d, INT_MIN) >= 0 && compareDec(d, INT_MAX) <= 0;
      return true;
    }
    case 'date':
      return DATE.test(v) && validDay(v);
    case 'dateTime':
      return instant(v) !== undefined;
    case 'base64Binary':
      return BASE64.test(v);
    case 'anyURI':
      return URI.test(v);
  }
}

function length(type: SimpleType, v: string): number | undefined {
  if (type.builtin !== 'string' && type.builtin !== 'anyURI') return undefined;
  const pairs = v.match(SURROGATE);
  return v.length - (pairs ? pairs.length : 0);
}

function stepOk(type: SimpleType, v: string, step: FacetStep): boolean {
  if (step.patterns && !step.patterns.some((p) => p.test(v))) return false;
  if (step.length !== undefined || step.minLength !== undefined || step.maxLength !== undefined) {
    const n = length(type, v);
    if (n === undefined) return false;
    if (step.length !== undefined && n !== step.length) return false;
    if (step.minLength !== undefined && n < step.minLength) return false;
    if (step.maxLength !== undefined && n > step.maxLength) return false;
  }
  if (step.totalDigits !== undefined || step.fractionDigits !== undefined) {
    const d = type.builtin === 'string' ? undefined : parseDecimal(v);
    if (!d) return false;
    if (step.totalDigits !== undefined && d.int.length + d.frac.length > step.totalDigits) return false;
    if (step.fractionDigits !== undefined && d.frac.length > step.fractionDigits) return false;
  }
  if (step.minInclusive !== undefined || step.maxInclusive !== undefined || step.minExclusive !== undefined || step.maxExclusive !== undefined) {
    const value = ordered(type, v);
    if (!value) return false;
    if (!within(type, value, step.minInclusive, 0, 1) || !within(type, value, step.maxInclusive, -1, 0)) return false;
    if (!within(type, value, step.minExclusive, 1, 1) || !within(type, value, step.maxExclusive, -1, -1)) return false;
  }
  if (step.enumeration) {
    // Decimals by value ("10" is the enumerated "10.000"); anything else lexically, which for dates
    // only leaves equal values written differently unproved.
    const dec = NUMERIC.has(type.builtin) ? parseDecimal(v) : undefined;
    if (!step.enumeration.some((e) => (dec ? equalDec(dec, e) : normalize(type, e) === v))) return false;
  }
  return true;
}

const CACHED_VALUES_PER_TYPE = 2048;
const verdicts = new WeakMap<SimpleType, Map<string, boolean>>();

/**
 * True when `raw` (entity references already decoded) is proved a valid value of `type`. Verdicts
 * are remembered per type: most of a CFE (issuer, CAE, dates, rates, signature algorithms) repeats
 * from one receipt to the next, and a verdict depends on nothing but the type and the text.
 */
export function provesSimple(type: SimpleType, raw: string): boolean {
  if (type.unsupported) return false;
  let cache = verdicts.get(type);
  if (!cache) {
    cache = new Map();
    verdicts.set(type, cache);
  }
  const known = cache.get(raw);
  if (known !== undefined) return known;
  const verdict = checkSimple(type, raw);
  if (raw.length <= 128) {
    if (cache.size >= CACHED_VALUES_PER_TYPE) cache.clear();
    cache.set(raw, verdict);
  }
  return verdict;
}

function checkSimple(type: SimpleType, raw: string): boolean {
  const v = normalize(type, raw);
  if (!lexicalOk(type, v)) return false;
  for (const step of type.steps) if (!stepOk(type, v, step)) return false;
  return true;
}

/** A fixed value is proved only when written exactly as declared (after whitespace handling). */
export function provesFixed(type: SimpleType, raw: string, fixed: string): boolean {
  return raw !== '' && normalize(type, raw) === normalize(type, fixed);
}
