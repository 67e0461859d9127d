/**
 * A proving XSD validator for the XML this service writes itself (issue 5 point 4: every CFE is
 * validated against DGI's XSD before it is stored). libxml2 costs ~95 µs per signed e-Ticket, a
 * fifth of the sealing thread's time; this checks the same document against a model compiled from
 * the same XSD files (xsd-model.ts) in a fraction of that.
 *
 * It only ever answers "proved valid" or "not proved". Whatever it does not model exactly (comments,
 * CDATA, DOCTYPE, processing instructions, xsi attributes, wildcard content, IDs, non-ASCII names,
 * literal CR or tabs in attributes, values written unusually…) is "not proved", and the caller then
 * asks libxml2, which stays the authority and the source of every error message.
 */
import type { ComplexType, ElementDecl, Particle, SchemaModel, SimpleType } from './xsd-model.js';
import { scanXml, WHITESPACE, type XmlNode as Node } from './xml-scan.js';
import { provesFixed, provesSimple } from './xsd-values.js';

function proveElement(node: Node, decl: ElementDecl): boolean {
  const type = decl.type;
  if (type.unsupported) return false;
  if (type.kind === 'simple') {
    if (node.attrs.length > 0 || node.children.length > 0) return false;
    return (decl.fixed === undefined || provesFixed(type, node.text, decl.fixed)) && provesSimple(type, node.text);
  }
  if (decl.fixed !== undefined || !proveAttributes(node, type)) return false;
  switch (type.content) {
    case 'simple':
      return node.children.length === 0 && provesSimple(type.simple as SimpleType, node.text);
    case 'empty':
      return node.children.length === 0 && node.text === '';
    case 'elements':
      return (type.mixed || (!node.refs && WHITESPACE.test(node.text))) && proveChildren(type.particle as Particle, node.children);
  }
}

function proveAttributes(node: Node, type: ComplexType): boolean {
  let required = 0;
  for (const a of node.attrs) {
    const d = a.ns === '' ? type.attributes.get(a.name) : undefined;
    if (!d || !provesSimple(d.type, a.value)) return false;
    if (d.fixed !== undefined && !provesFixed(d.type, a.value, d.fixed)) return false;
    if (d.required) required++;
  }
  for (const d of type.attributes.values()) if (d.required) required--;
  return required === 0;
}

const isDeclared = (kid: Node, decl: ElementDecl) => kid.name === decl.name && kid.ns === decl.ns;

/**
 * The fast path: one left-to-right pass taking as many repetitions as fit and, in a choice, the
 * branch that can start with the next child. A path it finds is a real path through the model
 * (so the children are valid if they are valid against the declarations it claimed); when it finds
 * none (-1, or not all children), the set-based match below decides.
 */
function greedy(m: Match, p: Particle, pos: number): number {
  if (p.kind === 'element') {
    let count = 0;
    while (count < p.max) {
      const kid = m.kids[pos];
      if (!kid || !isDeclared(kid, p.decl)) break;
      m.claimed[pos++] = p.decl;
      count++;
    }
    return count >= p.min ? pos : -1;
  }
  if (p.kind === 'any') return p.min === 0 ? pos : -1;
  let count = 0;
  while (count < p.max) {
    const next = p.kind === 'sequence' ? greedySequence(m, p.items, pos) : greedyChoice(m, p.items, pos);
    if (next < 0 || next === pos) break;
    pos = next;
    count++;
  }
  return count >= p.min || emptiable(p) ? pos : -1;
}

function greedySequence(m: Match, items: Particle[], pos: number): number {
  for (const item of items) {
    pos = greedy(m, item, pos);
    if (pos < 0) return -1;
  }
  return pos;
}

function greedyChoice(m: Match, items: Particle[], pos: number): number {
  const kid = m.kids[pos];
  if (kid) for (const item of items) if (startsWith(item, kid)) return greedy(m, item, pos);
  return -1;
}

function startsWith(p: Particle, kid: Node): boolean {
  switch (p.kind) {
    case 'element':
      return p.max > 0 && isDeclared(kid, p.decl);
    case 'any':
      return false;
    case 'choice':
      return p.max > 0 && p.items.some((item) => startsWith(item, kid));
    case 'sequence':
      if (p.max === 0) return false;
      for (const item of p.items) {
        if (startsWith(item, kid)) return true;
        if (!emptiable(item)) return false;
      }
      return false;
  }
}

function emptiable(p: Particle): boolean {
  if (p.min === 0) return true;
  if (p.kind === 'sequence') return p.items.every(emptiable);
  if (p.kind === 'choice') return p.items.some(emptiable);
  return false;
}

interface Match {
  kids: Node[];
  /** The declaration each child was matched by. */
  claimed: Array<ElementDecl | undefined>;
  ambiguous: boolean;
}

function matchOnce(m: Match, p: Particle, starts: number[]): number[] {
  switch (p.kind) {
    case 'element': {
      const out: number[] = [];
      for (const s of starts) {
        const kid = m.kids[s];
        if (!kid || !isDeclared(kid, p.decl)) continue;
        if (m.claimed[s] !== undefined && m.claimed[s] !== p.decl) m.ambiguous = true;
        m.claimed[s] = p.decl;
        out.push(s + 1);
      }
      return out;
    }
    case 'any': {
      // Wildcard content is never proved: a child a wildcard could take makes the match ambiguous.
      for (const s of starts) {
        const kid = m.kids[s];
        if (kid && !(p.namespaces.not !== undefined && kid.ns === p.namespaces.not) && (!p.namespaces.only || p.namespaces.only.includes(kid.ns))) m.ambiguous = true;
      }
      return [];
    }
    case 'sequence': {
      let cur = starts;
      for (const item of p.items) {
        if (cur.length === 0) break;
        cur = matchRepeated(m, item, cur);
      }
      return cur;
    }
    case 'choice': {
      const out: number[] = [];
      for (const item of p.items) for (const e of matchRepeated(m, item, starts)) if (!out.includes(e)) out.push(e);
      return out;
    }
  }
}

/**
 * Positions reachable after min..max matches of `p`. Stopping early (no new position) can only
 * leave positions out, which makes the proof fail, never succeed wrongly.
 */
function matchRepeated(m: Match, p: Particle, starts: number[]): number[] {
  if (p.min === 1 && p.max === 1) return matchOnce(m, p, starts);
  const result = p.min === 0 ? starts.slice() : [];
  const seen = starts.slice();
  let cur = starts;
  for (let k = 1; k <= p.max && cur.length > 0; k++) {
    const next = matchOnce(m, p, cur);
    let fresh = false;
    for (const e of next) {
      if (k >= p.min && !result.includes(e)) result.push(e);
      if (!seen.includes(e)) {
        seen.push(e);
        fresh = true;
      }
    }
    if (!fresh && k >= p.min) break;
    cur = next;
  }
  return result;
}

/**
 * Matches the children against the content model as sets of reachable positions (no backtracking
 * choices to get wrong). Each child must be claimed by one declaration on every path that reaches
 * it; a child two declarations could claim, or one a wildcard could take, is not proved.
 */
function proveChildren(particle: Particle, kids: Node[]): boolean {
  const m: Match = { kids, claimed: new Array(kids.length), ambiguous: false };
  if (greedy(m, particle, 0) !== kids.length) {
    m.claimed.fill(undefined);
    const ends = matchRepeated(m, particle, [0]);
    if (m.ambiguous || !ends.includes(kids.length)) return false;
  }
  for (let i = 0; i < kids.length; i++) {
    const decl = m.claimed[i];
    if (!decl || !proveElement(kids[i], decl)) return false;
  }
  return true;
}

/**
 * True only when `xml` is proved valid against `model` with `root` (`{namespace}name`) as its
 * document element. False means "ask libxml2", not "invalid".
 */
export function proveXsdValid(model: SchemaModel, root: string, xml: string): boolean {
  const tree = scanXml(xml);
  const decl = model.elements.get(root);
  if (!tree || !decl || `{${tree.ns}}${tree.name}` !== root) return false;
  return proveElement(tree, decl);
}
