/**
 * Who may sign a CAE file (BRIEF 3, 10): a certificate with DGI's subject serialNumber that chains
 * to a trusted certification authority. The subject alone proves nothing: anyone can make a
 * self-signed certificate with `serialNumber=RUC214844360018` (DGI itself answers such a signer with
 * E04 "certificate not trusted", BRIEF 3).
 *
 * Anchors: the built-in "Correo Uruguayo - CA" below (the CA of every DGI signer in
 * test/fixtures/dgi/cae, 2012-2016), the PEM file named by CAE_TRUST_ANCHORS (a newer DGI
 * CA, Abitab, the PKI Uruguay root...) and, outside production in DGI_MODE=simulator, the in-process
 * simulator's CA. Revocation (CRL/OCSP) is not checked: a CAE is checked offline, at import.
 */
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';

/**
 * "Correo Uruguayo - CA" (issuer "Correo Uruguayo - Root CA"), valid 2008-07-15 to 2030-12-31,
 * SHA-256 CE:A1:75:8E:99:93:76:DA:3A:56:66:53:EB:43:42:0B:19:75:E6:97:A4:13:7F:2E:60:A2:33:3A:6D:41:E4:C6.
 * Published at http://www.correo.com.uy/correoCert/CorreoUruguayoCA.crt; copy taken from
 * reingart/py_efactura_uy (CorreoUruguayoCA.crt). Verified 2026-11-21 against the DGI samples: the
 * certificates of RUC214844360018 (2016) and RUC219999830019 (2012) in samples/cae are signed by this key.
 */
export const CORREO_URUGUAYO_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIGfDCCBGSgAwIBAgIQdr5OpwAPf4FIfM69NaD5oTANBgkqhkiG9w0BAQUFADB/
MQswCQYDVQQGEwJVWTErMCkGA1UECgwiQURNSU5JU1RSQUNJT04gTkFDSU9OQUwg
REUgQ09SUkVPUzEfMB0GA1UECwwWU0VSVklDSU9TIEVMRUNUUk9OSUNPUzEiMCAG
A1UEAwwZQ29ycmVvIFVydWd1YXlvIC0gUm9vdCBDQTAeFw0wODA3MTUxNjE1NDBa
Fw0zMDEyMzEwMjUwMDBaMHoxCzAJBgNVBAYTAlVZMSswKQYDVQQKDCJBRE1JTklT
VFJBQ0lPTiBOQUNJT05BTCBERSBDT1JSRU9TMR8wHQYDVQQLDBZTRVJWSUNJT1Mg
RUxFQ1RST05JQ09TMR0wGwYDVQQDDBRDb3JyZW8gVXJ1Z3VheW8gLSBDQTCCAiIw
DQYJKoZIhvcNAQEBBQADggIPADCCAgoCggIBAN1dc8SYuZBgmqy7JbY42n42u7oV
wUUVY8tdz1Bafr3mvXEziRq8ZMGDziTfmsTW9jtUYM8NTQjcBoaoCSurwdyvz+G9
f1OmEvfVPbv84BoP4Nj2HtSQ/WiKWgOg/jBz9F+W7/YJXoGA10Lz/JFkDPGEEIot
NW3o22BtU+57XTtM9tL9J+nDzAtatyzs+x8fUmm0mfdthjwCq4jwTX6+OQJNG8h9
o2Bjvn35t2bW7WmLnKIvJiwr5Cx1thQEx4W1fzNarm9OMU6uHb1MY4MX4mQOADPe
3dw8k/Bh/fWL7Mnsh3fCHpvLziqbtztVsRu9+ZhpVk/Zw/HzhVgF0I/C/ARJyduX
dMCigLp88YWhpHkzYdvpNH4St1lNjsQ9z+3fhUWS/citkAGZ2H26n6xvxSZzRAfF
LmENq6aHfShPl58uuIFzmP9S8vlBx+VCDVwOceRiBRA5JO1tTZhErGDabMTHMvZg
bhBD5zWCAYUN2MmlCbThHIcHirGb9LfukzPtOyzd34pCztdxo23Dd0UY6GAohNYi
+58LosfSzArEAb3mooaSBrerb3JVgigRT4y1GlfxoRThZrJdxbtgMy108cyO5fCC
uyAX2KyiGKHK1bbdF5ark1oZbNfxnpuj+IEN8ZXHaJBVEqlqm1vvAPcoBXzO0c8+
lyfk8/mTHSB8suCJAgMBAAGjgfgwgfUwEgYDVR0TAQH/BAgwBgEB/wIBADAOBgNV
HQ8BAf8EBAMCAQYwHQYDVR0OBBYEFCWP30Mvjmq6C75GXFdQk7dRvvzZMB8GA1Ud
IwQYMBaAFH27aeuIYeFAz0cjZACGomZr3ISVMEwGA1UdIARFMEMwQQYEVR0gADA5
MDcGCCsGAQUFBwIBFitodHRwOi8vd3d3LmNvcnJlby5jb20udXkvY29ycmVvY2Vy
dC9jcHMucGRmMEEGA1UdHwQ6MDgwNqA0oDKGMGh0dHA6Ly93d3cuY29ycmVvLmNv
bS51eS9Db3JyZW9DZXJ0L2FuY19yb290LmNybDANBgkqhkiG9w0BAQUFAAOCAgEA
WaTxZ3s8Dxndzw9LVXRxgJawxwybLHJ0/qDP9pk3wGDhvRZe+WyumLMgKLDLpZ+T
RFf3DsA41Nf6aX2/FO5cRZB83B++x6En30oDQ6vpQhuIfFFTmKHZCZnq1giTM8tt
ou6aUdxzLvDxOkDlbl17PKIGP0L+6q+aNyjZaojrWddx3ZzwFAKR8UmxLN9ErNOK
9SMVGrwr/jJbyHa9m2sV8UBDGR6vSrEHCbtDHpQIBJxicKvBXTvBjyGfbrCV4sTj
3TUtCt/ZG9Tqp2SDbSJCo2Po1T6xy/2ra9Sl3z9AjHJ2MF/6CcmRjR0e309a1RN5
iXfrPnOAi0zLQY34TiIs5uDYjbi5pqDLqO3wZrvfuLFQxnM6kIXKZwjREzlzyAqF
hmAfcocqO9mgu+spCaXDbkwFM4o64Z7BBB1JlCbhRktRH6OXyGGMDtdUB2areJbW
ddiIUoWOd2OblD7FliFJVbia3/kGByDnCWAQKtSzxX74M1w8jg8yR/WMOno8r61z
dFbe0DAkZ1IrwW73aCQjXMbV3PDWdZqTJuQPVmvb+Zf243c0DWTzYa4hNmiFZTft
76RKbktC+WhkuMwJqu1CbtkYFwUS+9VUK8KfEMadjQp7ZfAWXIvJmR8cPIT3GF3/
zp9PwwehQhf+eLRpwcEG0qlVXakwPqYkXw6yihkL854=
-----END CERTIFICATE-----
`;

export interface CaeTrust {
  /** PEM certificates a CAE signer must chain to (a CA) or be (a pinned signer certificate). */
  anchors(): Promise<readonly string[]>;
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle; throws when there is none or one does not parse. */
export function parsePemBundle(text: string, source: string): string[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: no PEM certificate found`);
  for (const b of blocks) {
    try {
      new X509Certificate(b);
    } catch (err) {
      throw new Error(`${source}: unreadable certificate: ${(err as Error).message}`);
    }
  }
  return blocks;
}

/**
 * The trust used by the CAE service. Read at startup: a bad CAE_TRUST_ANCHORS file stops the
 * process. `simulatorCa` is asked on each check (the simulator starts lazily).
 */
export function createCaeTrust(opts: { anchorsFile?: string; simulatorCa?: () => Promise<string | undefined> }): CaeTrust {
  const fixed = [CORREO_URUGUAYO_CA_PEM, ...(opts.anchorsFile ? parsePemBundle(fs.readFileSync(opts.anchorsFile, 'utf8'), `CAE_TRUST_ANCHORS (${opts.anchorsFile})`) : [])];
  return {
    async anchors() {
      const sim = await opts.simulatorCa?.();
      return sim ? [...fixed, sim] : fixed;
    },
  };
}

const validAt = (c: X509Certificate, at: Date) => new Date(c.validFrom) <= at && at <= new Date(c.validTo);
const signedBy = (c: X509Certificate, issuer: X509Certificate) => issuer.ca && c.checkIssued(issuer) && c.verify(issuer.publicKey);

/**
 * Builds a path from `leaf` to an anchor through `intermediates` (other certificates in the file).
 * Every certificate on the path must be valid at `at` (the signing time, TmstFrma: a CAE stays
 * valid after DGI's certificate expires, as the samples show). Returns why not, or undefined.
 */
export function chainProblem(leaf: X509Certificate, anchors: readonly X509Certificate[], intermediates: readonly X509Certificate[], at: Date): string | undefined {
  if (!validAt(leaf, at)) return `el certificado no estaba vigente al firmar (${at.toISOString()}; vigencia ${leaf.validFrom} a ${leaf.validTo})`;
  let current = leaf;
  const used = new Set([leaf.fingerprint256]);
  for (let depth = 0; depth < 6; depth++) {
    if (anchors.some((a) => a.fingerprint256 === current.fingerprint256)) return undefined;
    if (anchors.some((a) => validAt(a, at) && signedBy(current, a))) return undefined;
    const next = intermediates.find((i) => !used.has(i.fingerprint256) && validAt(i, at) && signedBy(current, i));
    if (!next) break;
    used.add(next.fingerprint256);
    current = next;
  }
  return `el certificado (emitido por ${leaf.issuer.replace(/\n/g, ', ')}) no encadena con una autoridad de certificación de confianza`;
}
