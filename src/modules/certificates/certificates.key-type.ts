/**
 * Algorithm of a PKCS#12 private key that node-forge could not read. forge parses only RSA keys:
 * an EC, Ed25519 or RSA-PSS key stays in its bag as the raw PKCS#8 PrivateKeyInfo, and
 * loadPkcs12 reports NO_KEY although the file has a key. Node identifies that PrivateKeyInfo, so
 * the import can say "not RSA" instead of "no key". (Belongs next to loadPkcs12 in
 * platform/crypto/pki.ts as a KEY_NOT_RSA error; kept here until that file takes it.)
 */
import { createPrivateKey } from 'node:crypto';
import forge from 'node-forge';

/** e.g. 'ec', 'ed25519', 'rsa-pss'; undefined when the file has no key bag Node can read either. */
export function unreadableKeyType(file: Buffer, password: string): string | undefined {
  try {
    const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(file.toString('binary'))), false, password);
    const oids = forge.pki.oids;
    const bags = [
      ...(p12.getBags({ bagType: oids.pkcs8ShroudedKeyBag })[oids.pkcs8ShroudedKeyBag] ?? []),
      ...(p12.getBags({ bagType: oids.keyBag })[oids.keyBag] ?? []),
    ] as Array<{ key?: unknown; asn1?: forge.asn1.Asn1 }>;
    for (const bag of bags) {
      if (bag.key || !bag.asn1) continue;
      const der = Buffer.from(forge.asn1.toDer(bag.asn1).getBytes(), 'binary');
      return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }).asymmetricKeyType;
    }
  } catch {
    // Not readable at all: the caller keeps its original answer.
  }
  return undefined;
}
