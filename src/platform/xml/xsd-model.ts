/**
 * DGI's XSD set compiled into a small in-memory model for the proving validator (xsd-prover.ts).
 *
 * Only the constructs DGI's CFE schemas use are modelled: global and local elements (name, ref,
 * type, fixed, occurrence bounds), complex types with sequence / choice / wildcard particles,
 * attributes, simple content by extension, and simple types restricting XSD built-ins with the
 * usual facets. Anything else a type uses (groups, xs:all, complexContent, attribute groups,
 * unions, lists, other built-ins…) marks that type `unsupported`, and a document that reaches it
 * is handed to libxml2: the model never has to guess.
 */
import { XmlDocument, type XmlElement, type XmlTreeNode } from './libxml2.ts';
import { compileXsdPattern } from './xsd-pattern.js';

export const XS = 'http://www.w3.org/2001/XMLSchema';

export type Builtin = 'string' | 'decimal' | 'integer' | 'int' | 'positiveInteger' | 'nonNegativeInteger' | 'date' | 'dateTime' | 'base64Binary' | 'anyURI';

export interface FacetStep {
  enumeration?: string[];
  /** Patterns of one derivation step are alternatives; steps are all required (XSD 1.0 §4.3.4). */
  patterns?: RegExp[];
  length?: number;
  minLength?: number;
  maxLength?: number;
  totalDigits?: number;
  fractionDigits?: number;
  minInclusive?: string;
  maxInclusive?: string;
  minExclusive?: string;
  maxExclusive?: string;
}

export interface SimpleType {
  kind: 'simple';
  builtin: Builtin;
  steps: FacetStep[];
  whiteSpace: 'preserve' | 'replace' | 'collapse';
  unsupported?: string;
}

export interface AttributeDecl {
  type: SimpleType;
  required: boolean;
  fixed?: string;
}

export interface ComplexType {
  kind: 'complex';
  /** Unqualified attribute name → declaration (attributeFormDefault="unqualified" throughout DGI's set). */
  attributes: Map<string, AttributeDecl>;
  content: 'empty' | 'elements' | 'simple';
  mixed: boolean;
  particle?: Particle;
  simple?: SimpleType;
  unsupported?: string;
}

export interface ElementDecl {
  ns: string;
  name: string;
  type: SimpleType | ComplexType;
  fixed?: string;
}

export type Particle =
  | { kind: 'element'; decl: ElementDecl; min: number; max: number }
  | { kind: 'sequence' | 'choice'; items: Particle[]; min: number; max: number }
  | { kind: 'any'; min: number; max: number; namespaces: { not?: string; only?: string[] } };

export interface SchemaModel {
  /** Global elements by `{ns}name`. */
  elements: Map<string, ElementDecl>;
  /** Global simple types by `{ns}name` (DGI's limits at the door, xsd-limits.ts). */
  simpleTypes: Map<string, SimpleType>;
}

const BUILTINS: ReadonlySet<string> = new Set<Builtin>(['string', 'decimal', 'integer', 'int', 'positiveInteger', 'nonNegativeInteger', 'date', 'dateTime', 'base64Binary', 'anyURI']);

interface SchemaDoc {
  root: XmlElement;
  targetNs: string;
  elementQualified: boolean;
}

const key = (ns: string, name: string) => `{${ns}}${name}`;

function children(el: XmlElement): XmlElement[] {
  const out: XmlElement[] = [];
  for (let n: XmlTreeNode | null = el.firstChild; n; n = n.next) {
    if ('attrs' in n && (n as XmlElement).namespaceUri === XS && (n as XmlElement).name !== 'annotation') out.push(n as XmlElement);
  }
  return out;
}

const attr = (el: XmlElement, name: string): string | undefined => el.attr(name)?.value;

function occurs(el: XmlElement): { min: number; max: number } {
  const min = Number(attr(el, 'minOccurs') ?? '1');
  const maxRaw = attr(el, 'maxOccurs') ?? '1';
  return { min, max: maxRaw === 'unbounded' ? Infinity : Number(maxRaw) };
}

/** Compiles the schema set reachable from `rootFile` (include/import followed through `files`). */
export function compileSchemaModel(rootFile: string, files: ReadonlyMap<string, Uint8Array>, parseOption: number): SchemaModel {
  const docs: XmlDocument[] = [];
  const loaded = new Map<string, SchemaDoc>();
  const globalTypes = new Map<string, { el: XmlElement; doc: SchemaDoc }>();
  const globalElements = new Map<string, { el: XmlElement; doc: SchemaDoc }>();

  const load = (file: string) => {
    if (loaded.has(file)) return;
    const source = files.get(file);
    if (!source) throw new Error(`XSD ${file} not in the set`);
    const xml = XmlDocument.fromBuffer(source, { option: parseOption });
    docs.push(xml);
    const root = xml.root;
    const doc: SchemaDoc = { root, targetNs: attr(root, 'targetNamespace') ?? '', elementQualified: attr(root, 'elementFormDefault') === 'qualified' };
    loaded.set(file, doc);
    for (const item of children(root)) {
      const name = attr(item, 'name');
      if (item.name === 'include' || item.name === 'import') load(attr(item, 'schemaLocation') ?? '');
      else if ((item.name === 'complexType' || item.name === 'simpleType') && name) globalTypes.set(key(doc.targetNs, name), { el: item, doc });
      else if (item.name === 'element' && name) globalElements.set(key(doc.targetNs, name), { el: item, doc });
    }
  };

  const typeCache = new Map<string, SimpleType | ComplexType>();
  const elementCache = new Map<string, ElementDecl>();

  const resolveQName = (el: XmlElement, qname: string): [string, string] => {
    const i = qname.indexOf(':');
    const prefix = i < 0 ? '' : qname.slice(0, i);
    const ns = el.namespaceForPrefix(prefix) ?? '';
    return [ns, i < 0 ? qname : qname.slice(i + 1)];
  };

  const namedType = (el: XmlElement, qname: string): SimpleType | ComplexType => typeByName(...resolveQName(el, qname));

  const typeByName = (ns: string, local: string): SimpleType | ComplexType => {
    const k = key(ns, local);
    const cached = typeCache.get(k);
    if (cached) return cached;
    if (ns === XS) {
      const t: SimpleType = BUILTINS.has(local)
        ? { kind: 'simple', builtin: local as Builtin, steps: [], whiteSpace: local === 'string' ? 'preserve' : 'collapse' }
        : { kind: 'simple', builtin: 'string', steps: [], whiteSpace: 'preserve', unsupported: `built-in ${local}` };
      typeCache.set(k, t);
      return t;
    }
    const found = globalTypes.get(k);
    if (!found) throw new Error(`XSD type ${k} not found`);
    // Placeholder first, filled in place: a type may refer to itself through its content.
    const placeholder = (found.el.name === 'simpleType' ? { kind: 'simple' } : { kind: 'complex' }) as SimpleType | ComplexType;
    typeCache.set(k, placeholder);
    Object.assign(placeholder, found.el.name === 'simpleType' ? simpleType(found.el) : complexType(found.el, found.doc));
    return placeholder;
  };

  const simpleType = (el: XmlElement): SimpleType => {
    const [body, ...rest] = children(el);
    if (!body || rest.length > 0 || body.name !== 'restriction') return { kind: 'simple', builtin: 'string', steps: [], whiteSpace: 'preserve', unsupported: `simpleType ${body?.name}` };
    const baseName = attr(body, 'base');
    const inner = children(body).find((c) => c.name === 'simpleType');
    const base = baseName ? namedType(body, baseName) : inner ? simpleType(inner) : undefined;
    if (!base || base.kind !== 'simple') return { kind: 'simple', builtin: 'string', steps: [], whiteSpace: 'preserve', unsupported: 'restriction base' };
    const step: FacetStep = {};
    let whiteSpace = base.whiteSpace;
    let unsupported = base.unsupported;
    for (const facet of children(body)) {
      const value = attr(facet, 'value') ?? '';
      switch (facet.name) {
        case 'simpleType':
          break;
        case 'enumeration':
          (step.enumeration ??= []).push(value);
          break;
        case 'pattern':
          try {
            (step.patterns ??= []).push(compileXsdPattern(value));
          } catch (err) {
            unsupported = `pattern ${value}: ${(err as Error).message}`;
          }
          break;
        case 'whiteSpace':
          whiteSpace = value as SimpleType['whiteSpace'];
          break;
        case 'length':
        case 'minLength':
        case 'maxLength':
        case 'totalDigits':
        case 'fractionDigits':
          step[facet.name] = Number(value);
          break;
        case 'minInclusive':
        case 'maxInclusive':
        case 'minExclusive':
        case 'maxExclusive':
          step[facet.name] = value;
          break;
        default:
          unsupported = `facet ${facet.name}`;
      }
    }
    return { kind: 'simple', builtin: base.builtin, steps: [...base.steps, step], whiteSpace, unsupported };
  };

  const complexType = (el: XmlElement, doc: SchemaDoc): ComplexType => {
    const type: ComplexType = { kind: 'complex', attributes: new Map(), content: 'empty', mixed: attr(el, 'mixed') === 'true' };
    for (const item of children(el)) {
      if (item.name === 'sequence' || item.name === 'choice') {
        type.particle = particle(item, doc);
        type.content = 'elements';
      } else if (item.name === 'attribute') {
        addAttribute(type, item);
      } else if (item.name === 'simpleContent') {
        const [ext, ...more] = children(item);
        const base = ext && ext.name === 'extension' && more.length === 0 ? namedType(ext, attr(ext, 'base') ?? '') : undefined;
        if (!ext || !base || base.kind !== 'simple') {
          type.unsupported = 'simpleContent';
          continue;
        }
        type.content = 'simple';
        type.simple = base;
        for (const a of children(ext)) {
          if (a.name === 'attribute') addAttribute(type, a);
          else type.unsupported = `simpleContent ${a.name}`;
        }
      } else {
        type.unsupported = `complexType ${item.name}`;
      }
    }
    if (type.mixed && type.content === 'empty') type.unsupported = 'mixed empty content';
    // An abstract type only validates through xsi:type, which is never proved.
    if (attr(el, 'abstract') === 'true') type.unsupported = 'abstract type';
    return type;
  };

  const addAttribute = (type: ComplexType, el: XmlElement) => {
    const name = attr(el, 'name');
    const typeName = attr(el, 'type');
    const inner = children(el).find((c) => c.name === 'simpleType');
    const attrType = typeName ? namedType(el, typeName) : inner ? simpleType(inner) : namedType(el, 'xs:string');
    if (!name || attr(el, 'ref') || attr(el, 'form') || attrType.kind !== 'simple' || attr(el, 'use') === 'prohibited') {
      type.unsupported = `attribute ${name ?? attr(el, 'ref')}`;
      return;
    }
    // ID values must also be unique per document: not modelled, so an ID attribute is never proved.
    const idType = typeName !== undefined && resolveQName(el, typeName).join(' ') === `${XS} ID`;
    type.attributes.set(name, { type: idType ? { ...attrType, unsupported: 'ID' } : attrType, required: attr(el, 'use') === 'required', fixed: attr(el, 'fixed') });
  };

  const particle = (el: XmlElement, doc: SchemaDoc): Particle => {
    const { min, max } = occurs(el);
    if (el.name === 'element') return { kind: 'element', decl: elementDecl(el, doc, false), min, max };
    if (el.name === 'any') {
      const ns = attr(el, 'namespace') ?? '##any';
      const namespaces = ns === '##any' ? {} : ns === '##other' ? { not: doc.targetNs } : { only: ns.split(/\s+/).map((n) => (n === '##targetNamespace' ? doc.targetNs : n === '##local' ? '' : n)) };
      return { kind: 'any', min, max, namespaces };
    }
    if (el.name === 'sequence' || el.name === 'choice') return { kind: el.name, items: children(el).map((c) => particle(c, doc)), min, max };
    // xs:group, xs:all: a particle that matches nothing, so only an instance that may and does
    // leave it out (minOccurs 0) can be proved; a required one can never be.
    return { kind: 'any', min, max: 0, namespaces: { only: [] } };
  };

  const elementDecl = (el: XmlElement, doc: SchemaDoc, global: boolean): ElementDecl => {
    const ref = attr(el, 'ref');
    if (ref) {
      const [ns, local] = resolveQName(el, ref);
      const found = globalElements.get(key(ns, local));
      if (!found) throw new Error(`XSD element ${key(ns, local)} not found`);
      return globalElement(key(ns, local), found.el, found.doc);
    }
    const name = attr(el, 'name') ?? '';
    const form = attr(el, 'form');
    const qualified = global || (form ? form === 'qualified' : doc.elementQualified);
    const typeName = attr(el, 'type');
    const inner = children(el).find((c) => c.name === 'simpleType' || c.name === 'complexType');
    let type: SimpleType | ComplexType = typeName
      ? namedType(el, typeName)
      : inner?.name === 'simpleType'
        ? simpleType(inner)
        : inner
          ? complexType(inner, doc)
          : { kind: 'complex', attributes: new Map(), content: 'elements', mixed: true, unsupported: 'anyType' };
    if (attr(el, 'substitutionGroup') || attr(el, 'abstract') === 'true') type = { ...type, unsupported: 'substitution group' };
    // Identity constraints (key, unique, keyref) are not modelled: such an element is never proved.
    if (children(el).some((c) => c.name === 'key' || c.name === 'unique' || c.name === 'keyref')) type = { ...type, unsupported: 'identity constraint' };
    return { ns: qualified ? doc.targetNs : '', name, type, fixed: attr(el, 'fixed') };
  };

  const globalElement = (k: string, el: XmlElement, doc: SchemaDoc): ElementDecl => {
    const cached = elementCache.get(k);
    if (cached) return cached;
    const decl = elementDecl(el, doc, true);
    elementCache.set(k, decl);
    return decl;
  };

  try {
    load(rootFile);
    const elements = new Map<string, ElementDecl>();
    for (const [k, { el, doc }] of globalElements) elements.set(k, globalElement(k, el, doc));
    // Substitution groups change what a reference accepts: refuse to prove anything if one exists.
    for (const { el } of globalElements.values()) {
      if (attr(el, 'substitutionGroup')) for (const decl of elements.values()) decl.type = { ...decl.type, unsupported: 'substitution groups in the set' };
    }
    const simpleTypes = new Map<string, SimpleType>();
    for (const [k, { el }] of globalTypes) {
      if (el.name !== 'simpleType') continue;
      const type = typeByName(k.slice(1, k.indexOf('}')), k.slice(k.indexOf('}') + 1));
      if (type.kind === 'simple') simpleTypes.set(k, type);
    }
    return { elements, simpleTypes };
  } finally {
    for (const d of docs) d.dispose();
  }
}
