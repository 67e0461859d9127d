/**
 * Company signing certificates (spec 4.3 Empresa; BRIEF 3): import a PKCS#12, choose the active
 * one, list them, and hand the emission flow a ready signing key.
 */
import { createPrivateKey, type KeyObject } from 'node:crypto';
import { asc, eq } from 'drizzle-orm';
import { errors } from '../../lib/errors.js';
import { loadPkcs12, Pkcs12Error, readCertificate, type CertificateInfo } from '../../platform/crypto/pki.js';
import { PG_UNIQUE_VIOLATION, pgErrorCode, type Db } from '../../platform/db/client.js';
import type { CacheInvalidation } from '../../platform/db/invalidation.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import type { Logger } from '../../platform/logger.js';
import { decryptSecret, encryptSecret } from './certificates.crypto.js';
import { createSigningContext, type SigningContext } from '../emission/index.js';
import { certificateErrors as e } from './certificates.errors.js';
import { unreadableKeyType } from './certificates.key-type.js';
import * as repo from './certificates.repository.js';
import type { CertificateTrust } from './certificates.trust.js';
import { companyCertificates } from './certificates.tables.js';
import { companyOfIds } from '../../platform/db/company-of.js';

const DAY = 86_400_000;
export const EXPIRY_WARNING_DAYS = 30;

function view(r: repo.CertificateRow, now = Date.now()) {
  const venceEnDias = Math.floor((r.notAfter.getTime() - now) / DAY);
  return {
    id: r.id,
    idEmpresa: r.companyId,
    sujeto: r.subject,
    emisor: r.issuer,
    numeroSerie: r.serialNumber,
    validoDesde: r.notBefore.toISOString(),
    validoHasta: r.notAfter.toISOString(),
    activo: r.isActive,
    vigente: r.notBefore.getTime() <= now && now <= r.notAfter.getTime(),
    venceEnDias,
    porVencer: r.isActive && venceEnDias >= 0 && venceEnDias < EXPIRY_WARNING_DAYS,
    advertencias: r.trustWarnings,
  };
}

export interface SigningMaterial {
  certificateId: number;
  privateKey: KeyObject;
  certificatePem: string;
  certificate: CertificateInfo;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export function createCertificatesService(deps: { db: Db; logger: Logger; masterKey: Buffer; trust: CertificateTrust; invalidation?: CacheInvalidation; companyRut(companyId: number): Promise<string | undefined> }) {
  const { db } = deps;
  const cache = new Map<number, SigningMaterial>();
  // Topic `certificates`: another process (or a script) that imports or activates a certificate.
  // `generation` keeps a key read before a change from being cached after it.
  let generation = 0;
  deps.invalidation?.subscribe('certificates', () => {
    generation++;
    cache.clear();
  });
  const contexts = new Map<number, { certificateId: number; ctx: SigningContext }>();

  /**
   * For the emission flow: the active certificate's key, decrypted once and cached per company
   * (dropped when company_certificates changes, in this process or another: invalidation.ts).
   */
  async function getSigningContext(companyId: number): Promise<SigningMaterial> {
    const cached = cache.get(companyId);
    if (cached && cached.certificate.notAfter.getTime() > Date.now()) return cached;
    const loadedIn = generation;
    const row = await repo.activeCertificate(db, companyId);
    if (!row) throw e.EMPRESA_SIN_CERTIFICADO();
    warnIfExpiring(row);
    const material: SigningMaterial = {
      certificateId: row.id,
      privateKey: createPrivateKey(decryptSecret(deps.masterKey, row.encryptedKey)),
      certificatePem: row.certificatePem,
      certificate: readCertificate(row.certificatePem),
    };
    if (loadedIn === generation && deps.invalidation?.live !== false) cache.set(companyId, material);
    return material;
  }

  function warnIfExpiring(r: repo.CertificateRow) {
    const v = view(r);
    if (v.porVencer) deps.logger.warn({ companyId: r.companyId, certificateId: r.id, venceEnDias: v.venceEnDias }, `signing certificate of company ${r.companyId} expires in ${v.venceEnDias} days; import and activate its renewal`);
  }

  return {
    /** id → company id of existing rows (issue 28 point 5: platform/http/company-refs.ts resolves body ids through it). */
    companyOf: (ids: readonly number[]) => companyOfIds(db, companyCertificates, ids),
    /** importarCertificado: password, key/certificate pair, validity now and serialNumber=RUC<company RUT>. */
    async importCertificate(actor: Actor, input: { idEmpresa: number; clave: string; archivo?: Buffer; activar?: boolean }) {
      assertCompanyRole(actor, input.idEmpresa, 'administrador');
      const rut = await deps.companyRut(input.idEmpresa);
      if (!rut) throw errors.EMPRESA_NO_ENCONTRADA();
      if (!input.archivo?.length) throw e.CERTIFICADO_ARCHIVO_REQUERIDO();
      let contents;
      try {
        contents = loadPkcs12(input.archivo, input.clave);
      } catch (err) {
        if (!(err instanceof Pkcs12Error)) throw err;
        const keyType = err.code === 'NO_KEY' ? unreadableKeyType(input.archivo, input.clave) : undefined;
        if (keyType) throw e.CERTIFICADO_CLAVE_NO_RSA(`La clave privada del certificado es ${keyType.toUpperCase()}, no RSA: DGI exige certificados con clave RSA (firma rsa-sha256, BRIEF 3). Solicite a la autoridad certificadora un certificado RSA.`);
        throw { WRONG_PASSWORD: e.CERTIFICADO_CLAVE_INCORRECTA, MALFORMED: e.CERTIFICADO_ARCHIVO_INVALIDO, NO_KEY: e.CERTIFICADO_SIN_CLAVE_PRIVADA, NO_CERT: e.CERTIFICADO_CLAVE_NO_CORRESPONDE }[err.code]();
      }
      const info = readCertificate(contents.certificatePem);
      const now = Date.now();
      if (info.notBefore.getTime() > now || info.notAfter.getTime() < now) {
        throw e.CERTIFICADO_NO_VIGENTE(`El certificado es válido del ${info.notBefore.toISOString()} al ${info.notAfter.toISOString()}.`);
      }
      // DGI rejects envelopes signed by a certificate without the issuer's RUC (S02, BRIEF 3).
      if (info.rut !== rut) throw e.CERTIFICADO_RUT_DISTINTO(`El sujeto del certificado tiene serialNumber=${info.subjectSerialNumber ?? '(ninguno)'}; se requiere RUC${rut}.`);
      // BRIEF 3: DGI answers E04 to a certificate outside the accredited CAs; only real mode refuses here.
      const advertencias = await deps.trust.check(contents.certificatePem, contents.chainPem);
      if (advertencias.length && deps.trust.enforce) throw e[advertencias[0].codigo](advertencias[0].mensaje);
      if (advertencias.length) deps.logger.warn({ companyId: input.idEmpresa, advertencias: advertencias.map((a) => a.codigo) }, 'imported a signing certificate DGI would not trust (simulator mode)');
      try {
        const row = await db.transaction(async (tx) => {
          const inserted = await repo.insertCertificate(tx, {
            companyId: input.idEmpresa, subject: info.subject, issuer: info.issuer, serialNumber: info.serialNumber,
            notBefore: info.notBefore, notAfter: info.notAfter, fingerprint256: info.fingerprint256,
            certificatePem: contents.certificatePem, chainPem: contents.chainPem.join('\n'),
            encryptedKey: encryptSecret(deps.masterKey, contents.privateKeyPem), trustWarnings: advertencias,
          });
          const hasActive = await repo.activeCertificate(tx, input.idEmpresa);
          if (input.activar !== false && (input.activar || !hasActive)) await repo.activate(tx, input.idEmpresa, inserted.id);
          return (await repo.findCertificate(tx, inserted.id))!;
        });
        if (row.isActive) cache.delete(input.idEmpresa);
        return view(row);
      } catch (err) {
        if (pgErrorCode(err) === PG_UNIQUE_VIOLATION) throw e.CERTIFICADO_DUPLICADO();
        throw err;
      }
    },

    /** asignarCertificado: an already imported, currently valid certificate becomes the active one. */
    async assign(actor: Actor, companyId: number, certificateId: number) {
      assertCompanyRole(actor, companyId, 'administrador');
      const row = await repo.findCertificate(db, certificateId);
      if (!row || row.companyId !== companyId) throw e.CERTIFICADO_NO_ENCONTRADO();
      if (!view(row).vigente) throw e.CERTIFICADO_NO_VIGENTE();
      // A certificate imported in simulator mode with a warning is not signed with in real mode either.
      if (deps.trust.enforce) {
        const [first] = await deps.trust.check(row.certificatePem, row.chainPem.match(PEM_BLOCK) ?? []);
        if (first) throw e[first.codigo](first.mensaje);
      }
      await db.transaction((tx) => repo.activate(tx, companyId, certificateId));
      cache.delete(companyId);
      return view((await repo.findCertificate(db, certificateId))!);
    },

    async list(actor: Actor, companyId: number) {
      assertCompanyRole(actor, companyId, 'lectura');
      const rows = await repo.listCertificates(db, companyId);
      rows.filter((r) => r.isActive).forEach(warnIfExpiring);
      return rows.map((r) => view(r));
    },

    /**
     * The emission library's signing context (SignedInfo/KeyInfo templates, BRIEF 3) of the
     * company's active certificate, built once per certificate; undefined without an active one.
     * Used by every module that signs: emission, daily report, receiver exchange, DGI submission.
     */
    async signingContextOf(companyId: number): Promise<SigningContext | undefined> {
      let material: SigningMaterial;
      try {
        material = await getSigningContext(companyId);
      } catch (err) {
        if ((err as { code?: string }).code === 'EMPRESA_SIN_CERTIFICADO') return undefined;
        throw err;
      }
      const hit = contexts.get(companyId);
      if (hit && hit.certificateId === material.certificateId) return hit.ctx;
      const ctx = createSigningContext({ privateKey: material.privateKey, certificate: material.certificatePem });
      contexts.set(companyId, { certificateId: material.certificateId, ctx });
      return ctx;
    },

    getSigningContext,

    /** Companies with an active certificate, oldest first: who may sign a query not tied to one company (issuer-registry sync). */
    async companiesWithActiveCertificate(): Promise<number[]> {
      const rows = await db.select({ companyId: companyCertificates.companyId }).from(companyCertificates).where(eq(companyCertificates.isActive, true)).orderBy(asc(companyCertificates.companyId));
      return rows.map((r) => r.companyId);
    },
  };
}

export type CertificatesService = ReturnType<typeof createCertificatesService>;
