/**
 * A strict, small XML 1.0 + Namespaces reader for the proving validator (xsd-prover.ts): elements,
 * attributes, text and the five predefined entities and character references, namespace-resolved.
 * It gives up (undefined) on everything else: XML or DOCTYPE declarations, comments, CDATA,
 * processing instructions, non-ASCII names, literal CR, tabs or line feeds in attribute values,
 * forbidden characters. Giving up only means libxml2 reads the document instead.
 */

export interface XmlAttr {
  ns: string;
  name: string;
  value: string;
}

export interface XmlNode {
  ns: string;
  name: string;
  attrs: XmlAttr[];
  children: XmlNode[];
  /** The character data, references decoded. */
  text: string;
  /** Some of `text` came from a reference (so it is not ignorable whitespace even if it looks so). */
  refs: boolean;
}

class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

const NO_ATTRS: XmlAttr[] = [];
// Characters XML 1.0 forbids (§2.2), a literal CR (line-end normalisation, §2.11), lone surrogates.
const FORBIDDEN = /[\x00-\x08\x0B\x0C\x0E-\x1F\r\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const WHITESPACE = /^[ \t\n]*$/;
const BAD_REF = /&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/;
const REF = /&(?:(amp)|(lt)|(gt)|(quot)|(apos)|#([0-9]+)|#x([0-9a-fA-F]+));/g;
const NAMED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function replaceRef(_m: string, amp?: string, lt?: string, gt?: string, quot?: string, apos?: string, dec?: string, hex?: string): string {
  const named = amp ?? lt ?? gt ?? quot ?? apos;
  if (named) return NAMED[named];
  const code = dec !== undefined ? Number(dec) : parseInt(hex as string, 16);
  const ok = code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
  return ok ? String.fromCodePoint(code) : giveUp();
}

function decode(raw: string): string {
  if (raw.indexOf('&') < 0) return raw;
  if (BAD_REF.test(raw)) giveUp();
  return raw.replace(REF, replaceRef);
}

const isNameStart = (c: number) => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
const isNameChar = (c: number) => isNameStart(c) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d;
const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x09;

/**
 * Prefix ('' for the default namespace) → namespace URI in force. A Map copied when an element
 * declares namespaces: an object chained by Object.create made every declaring element a new
 * prototype, which V8 turns into a slow dictionary each time.
 */
type Scope = Map<string, string>;

class Reader {
  pos = 0;
  /** Set by readAttributes: the element's attributes and the scope it declares. */
  attrs: XmlAttr[] = NO_ATTRS;
  scope: Scope = new Map();
  /** Set by resolve: the local name of the QName resolved. */
  local = '';
  constructor(readonly s: string) {}

  /** An ASCII QName (at most one colon, both parts starting with a letter or '_') at pos. */
  qname(): string {
    const s = this.s;
    const start = this.pos;
    let i = start;
    if (!isNameStart(s.charCodeAt(i))) giveUp();
    i++;
    let colon = false;
    for (;;) {
      const c = s.charCodeAt(i);
      if (isNameChar(c)) i++;
      else if (c === 0x3a && !colon && isNameStart(s.charCodeAt(i + 1))) {
        colon = true;
        i += 2;
      } else break;
    }
    this.pos = i;
    return s.slice(start, i);
  }

  spaces(): boolean {
    const start = this.pos;
    while (isSpace(this.s.charCodeAt(this.pos))) this.pos++;
    return this.pos > start;
  }
}

/** The namespace of `qname` in the element's scope r.scope (its local name goes to r.local). */
function resolve(r: Reader, qname: string, attribute: boolean): string {
  const scope = r.scope;
  const i = qname.indexOf(':');
  if (i < 0) {
    r.local = qname;
    return attribute ? '' : (scope.get('') ?? '');
  }
  const prefix = qname.slice(0, i);
  const ns = scope.get(prefix);
  if (ns === undefined || prefix === 'xml' || prefix === 'xmlns') giveUp();
  r.local = qname.slice(i + 1);
  return ns as string;
}

/** Reads the attributes of the start tag at r.pos into r.attrs and r.scope (allocating only when there are some). */
function readAttributes(r: Reader, parentScope: Scope): void {
  const s = r.s;
  let scope = parentScope;
  let pending: string[] | undefined; // raw name, value, raw name, value…
  let rawNames: string[] | undefined;
  for (;;) {
    const spaced = r.spaces();
    const c = s.charCodeAt(r.pos);
    if (c === 0x3e || c === 0x2f) break; // '>' or '/'
    if (!spaced) giveUp();
    const name = r.qname();
    r.spaces();
    if (s.charCodeAt(r.pos) !== 0x3d) giveUp(); // '='
    r.pos++;
    r.spaces();
    const quote = s.charCodeAt(r.pos);
    if (quote !== 0x22 && quote !== 0x27) giveUp();
    const close = s.indexOf(quote === 0x22 ? '"' : "'", r.pos + 1);
    if (close < 0) giveUp();
    const raw = s.slice(r.pos + 1, close);
    r.pos = close + 1;
    // '<' is not allowed in values; literal tabs / line feeds are normalised to spaces (§3.3.3): not modelled.
    if (raw.includes('<') || raw.includes('\t') || raw.includes('\n') || rawNames?.includes(name)) giveUp();
    (rawNames ??= []).push(name);
    const value = decode(raw);
    if (name === 'xmlns' || name.startsWith('xmlns:')) {
      const prefix = name === 'xmlns' ? '' : name.slice(6);
      if (prefix === 'xml' || prefix === 'xmlns' || (prefix !== '' && value === '')) giveUp();
      if (scope === parentScope) scope = new Map(parentScope);
      scope.set(prefix, value);
    } else {
      (pending ??= []).push(name, value);
    }
  }
  r.scope = scope;
  if (!pending) {
    r.attrs = NO_ATTRS;
    return;
  }
  const attrs: XmlAttr[] = [];
  for (let k = 0; k < pending.length; k += 2) {
    const ns = resolve(r, pending[k], true);
    const name = r.local;
    for (const other of attrs) if (other.ns === ns && other.name === name) giveUp();
    attrs.push({ ns, name, value: pending[k + 1] });
  }
  r.attrs = attrs;
}

/** The document element as a namespace-resolved tree, or undefined when not read (see above). */
export function scanXml(xml: string): XmlNode | undefined {
  try {
    return scan(xml);
  } catch (err) {
    if (err instanceof GiveUp) return undefined;
    throw err;
  }
}

function scan(xml: string): XmlNode {
  if (FORBIDDEN.test(xml)) giveUp();
  const r = new Reader(xml);
  const nodes: XmlNode[] = [];
  const raws: string[] = [];
  const scopes: Scope[] = [new Map()];
  let root: XmlNode | undefined;
  for (;;) {
    const start = r.pos;
    const lt = xml.indexOf('<', start);
    const end = lt < 0 ? xml.length : lt;
    if (end > start) {
      const raw = xml.slice(start, end);
      const top = nodes[nodes.length - 1];
      if (!top) {
        if (!WHITESPACE.test(raw)) giveUp();
      } else {
        if (raw.includes(']]>')) giveUp();
        const text = decode(raw);
        top.text += text;
        if (text !== raw) top.refs = true;
      }
    }
    if (lt < 0) break;
    r.pos = lt + 1;
    if (xml.charCodeAt(r.pos) === 0x2f) {
      // End tag: the same raw name as the open element.
      const open = raws.pop();
      r.pos++;
      if (open === undefined || !xml.startsWith(open, r.pos)) giveUp();
      r.pos += (open as string).length;
      r.spaces();
      if (xml.charCodeAt(r.pos) !== 0x3e) giveUp();
      nodes.pop();
      scopes.pop();
      r.pos++;
      continue;
    }
    if (root && nodes.length === 0) giveUp(); // a second document element
    const rawName = r.qname();
    readAttributes(r, scopes[scopes.length - 1]);
    const scope = r.scope;
    const ns = resolve(r, rawName, false);
    const node: XmlNode = { ns, name: r.local, attrs: r.attrs, children: [], text: '', refs: false };
    if (nodes.length) nodes[nodes.length - 1].children.push(node);
    else root = node;
    if (xml.charCodeAt(r.pos) === 0x2f) {
      if (xml.charCodeAt(r.pos + 1) !== 0x3e) giveUp();
      r.pos += 2;
    } else {
      r.pos++;
      nodes.push(node);
      raws.push(rawName);
      scopes.push(scope);
    }
  }
  if (!root || nodes.length > 0) giveUp();
  return root as XmlNode;
}
