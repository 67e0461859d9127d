/**
 * XSD validation against DGI's schema set (XSDs_FE 1.44.2) with libxml2-wasm.
 *
 * One compiled validator per root schema, compiled lazily on first use and kept for the
 * process lifetime (compiling CFEDGI.xsd costs ~100 ms; a validation ~0.2 ms, STACK.md 4c).
 * Schemas are served from memory through an input provider, so libxml2 never touches the
 * network or the filesystem while resolving xs:include/xs:import.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  ParseOption,
  XmlBufferInputProvider,
  XmlDocument,
  XmlLibError,
  XsdValidator,
  xmlRegisterInputProvider,
} from './libxml2.ts';
import { compileSchemaModel, type SchemaModel } from './xsd-model.js';
import { proveXsdValid } from './xsd-prover.js';

export type XsdKind =
  | 'CFE'
  | 'EnvioCFE'
  | 'EnvioCFE_entreEmpresas'
  | 'CFE_Adenda'
  | 'Reporte'
  | 'ACKSobre'
  | 'ACKCFE_DGI'
  | 'ACKCFE_Partes'
  | 'ACKRepDiario'
  | 'CAE'
  | 'CFEs_Anulados';

export type XsdResult = { ok: true } | { ok: false; errors: string[] };

/** Root schema per document kind (resources/dgi/xsd/SOURCE.md, "Which root schema validates what"). */
export const ROOT_SCHEMA: Readonly<Record<XsdKind, string>> = {
  CFE: 'CFEDGI.xsd',
  EnvioCFE: 'EnvioCFE.xsd',
  EnvioCFE_entreEmpresas: 'EnvioCFE_entreEmpresas.xsd',
  CFE_Adenda: 'CFEEmpresas.xsd',
  Reporte: 'ReporteDiarioCFE.xsd',
  ACKSobre: 'ACKSobre.xsd',
  ACKCFE_DGI: 'ACKCFE_DGI.xsd',
  ACKCFE_Partes: 'ACKCFE_Partes.xsd',
  ACKRepDiario: 'ACKRepDiario.xsd',
  CAE: 'CAE.xsd',
  CFEs_Anulados: 'CFEs_Anulados_x_RechazoDGI.xsd',
};

/** Resolved from this file, not from the cwd, so workers started elsewhere still find it. */
export const DGI_RESOURCES_DIR = fileURLToPath(new URL('../../../resources/dgi/', import.meta.url));
export const DGI_XSD_DIR = `${DGI_RESOURCES_DIR}xsd/`;

const VIRTUAL_BASE = 'file:///dgi-xsd/';

/**
 * DGI's xmldsig schema types X509SerialNumber as xs:integer; real serials have ~39 digits and
 * libxml2 rejects them. SOURCE.md: patch a copy at validation time, never the committed file.
 */
export function patchXmldsigSchema(xsd: string): string {
  const patched = xsd.replace(
    /<element name="X509SerialNumber" type="integer"\s*\/>/,
    '<element name="X509SerialNumber" type="string"/>',
  );
  if (patched === xsd) throw new Error('xmldsig-core-schema.xsd: X509SerialNumber declaration not found');
  return patched;
}

let schemaFiles: Map<string, Buffer> | undefined;

/** The XSD set (top folder only) as buffers, with xmldsig-core-schema.xsd patched in memory. */
export function loadPatchedXsdSet(): Map<string, Buffer> {
  if (schemaFiles) return schemaFiles;
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(DGI_XSD_DIR)) {
    if (!name.endsWith('.xsd')) continue;
    let content = readFileSync(DGI_XSD_DIR + name);
    if (name === 'xmldsig-core-schema.xsd') content = Buffer.from(patchXmldsigSchema(content.toString('utf8')));
    files.set(name, content);
  }
  schemaFiles = files;
  return files;
}

let providerRegistered = false;
const validators = new Map<XsdKind, XsdValidator>();

// No DTD loading, no network: xmldsig/xenc declare an external DTD we must never fetch. COMPACT
// stores short text nodes inline, which only saves allocations (~10 % of a CFE parse).
const PARSE_OPTIONS = ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_COMPACT;

function getValidator(kind: XsdKind): XsdValidator {
  const cached = validators.get(kind);
  if (cached) return cached;
  const files = loadPatchedXsdSet();
  if (!providerRegistered) {
    const buffers: Record<string, Uint8Array> = {};
    for (const [name, buf] of files) buffers[VIRTUAL_BASE + name] = buf;
    xmlRegisterInputProvider(new XmlBufferInputProvider(buffers));
    providerRegistered = true;
  }
  const root = ROOT_SCHEMA[kind];
  const source = files.get(root);
  if (!source) throw new Error(`XSD ${root} missing from ${DGI_XSD_DIR}`);
  const schemaDoc = XmlDocument.fromBuffer(source, { url: VIRTUAL_BASE + root, option: PARSE_OPTIONS });
  try {
    const validator = XsdValidator.fromDoc(schemaDoc);
    validators.set(kind, validator);
    return validator;
  } finally {
    schemaDoc.dispose();
  }
}

function describe(err: unknown): string[] {
  if (err instanceof XmlLibError && err.details.length > 0) {
    return err.details.map((d) => (d.line ? `line ${d.line}: ${d.message.trim()}` : d.message.trim()));
  }
  return [err instanceof Error ? err.message : String(err)];
}

/**
 * Validates a document against the root schema for `kind`. Strings are parsed as UTF-8;
 * pass a Buffer for documents declared in another encoding (DGI's sample envelope is ISO-8859-1).
 */
export function validateXml(kind: XsdKind, xml: string | Uint8Array): XsdResult {
  let doc: XmlDocument;
  try {
    doc =
      typeof xml === 'string'
        ? XmlDocument.fromString(xml, { option: PARSE_OPTIONS })
        : XmlDocument.fromBuffer(xml, { option: PARSE_OPTIONS });
  } catch (err) {
    return { ok: false, errors: describe(err) };
  }
  try {
    return validateDocument(kind, doc);
  } finally {
    doc.dispose();
  }
}

/** Validates a document the caller parsed (and disposes), for a caller that reads it too. */
export function validateDocument(kind: XsdKind, doc: XmlDocument): XsdResult {
  try {
    getValidator(kind).validate(doc);
    return { ok: true };
  } catch (err) {
    return { ok: false, errors: describe(err) };
  }
}

/** Document element per kind for the proving validator; kinds not listed always go to libxml2. */
const PROVER_ROOT: Partial<Record<XsdKind, string>> = { CFE: '{http://cfe.dgi.gub.uy}CFE' };
const proverModels = new Map<XsdKind, SchemaModel>();

/**
 * Validation of XML this service wrote itself (the sealing path, issue 5 point 4). The proving
 * validator (xsd-prover.ts, compiled from the same patched XSD set) answers first; only what it
 * cannot prove valid goes to libxml2, which decides and words the errors. Same verdicts as
 * `validateXml`, about half its cost on a signed e-Ticket (~40 vs ~80 µs).
 */
export function validateOwnXml(kind: XsdKind, xml: string): XsdResult {
  const root = PROVER_ROOT[kind];
  if (root && proveXsdValid(schemaModel(kind), root, xml)) return { ok: true };
  // As UTF-8 bytes: Node encodes natively, a few µs less than libxml2-wasm's JS string encoder.
  return validateXml(kind, Buffer.from(xml, 'utf8'));
}

/** The compiled model of a root schema (xsd-model.ts), once per process: the prover's and DGI's limits at the door (xsd-limits.ts). */
export function schemaModel(kind: XsdKind): SchemaModel {
  let model = proverModels.get(kind);
  if (!model) {
    model = compileSchemaModel(ROOT_SCHEMA[kind], loadPatchedXsdSet(), PARSE_OPTIONS);
    proverModels.set(kind, model);
  }
  return model;
}
