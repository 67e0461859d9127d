/**
 * libxml2-wasm as the service imports it: the package, plus one workaround for how V8 11 (Node 20)
 * runs its node classes.
 *
 * libxml2-wasm's classes are TypeScript decorator output: `XmlElement = _classThis = class extends
 * XmlTreeNode {…}`, then `__setFunctionName(_classThis, "XmlElement")`, which redefines the class's
 * `name` with Object.defineProperty. In V8 11, `new` of a derived class whose `name` was redefined
 * never gets optimized code: every TurboFan compile of a function that constructs one (createNode,
 * `firstChild`, `next`, `attr`, `root` and our walks that inline them) is thrown away at the end
 * ("Bailed out due to dependency change", a StableMapDependency on the class's map) and retried
 * a few milliseconds later, for as long as the process runs. Measured under issue 45's lifecycle
 * bench: ~3.9 s of compile time in 30 s of steady load (13 % of a core, ~60 % of it these aborted
 * retries), and a walk of a CFE's ~150 nodes 2.5-3 times slower than once optimized.
 *
 * Making each class the prototype of another one (an empty subclass, never used) gives it a
 * prototype map, and the compiles then succeed: no aborted retry, and the same walk runs at the
 * optimized speed (test/platform/libxml2-classes.test.ts counts the aborted compiles). Every
 * module of the service imports libxml2-wasm through this file, so each thread that uses it
 * (main, seal, simulated DGI) applies this once, on load.
 */
import { XmlAttribute, XmlCData, XmlComment, XmlDocument, XmlElement, XmlEntityReference, XmlText } from 'libxml2-wasm';

export * from 'libxml2-wasm';

/** The classes libxml2-wasm constructs while reading a document (createNode, `root`, `attr`). */
export const NODE_CLASSES = [XmlDocument, XmlElement, XmlText, XmlAttribute, XmlComment, XmlCData, XmlEntityReference] as const;

for (const NodeClass of NODE_CLASSES) {
  // The subclass exists only to make NodeClass a prototype (see above); it is never instantiated.
  void class extends (NodeClass as abstract new (...args: never[]) => object) {};
}
