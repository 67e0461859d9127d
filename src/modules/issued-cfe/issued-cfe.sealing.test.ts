import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createSigningContext, type Cfe } from '../emission/index.js';
import { sampleCfe } from '../emission/sample-cfes.js';
import { createTestCa, issueTestCertificate } from '../../platform/crypto/pki.js';
import { describeXsdError, sealCfe, sealCfes, SealError } from './issued-cfe.sealing.js';

const ca = createTestCa();
const cert = issueTestCertificate(ca, { rut: '219999830019', name: 'Sealing SA' });
const ctx = createSigningContext({ privateKey: cert.keyPem, certificate: cert.certPem });
const base = sampleCfe(111, { lines: 1 });
const qr = { RUCEmisor: '219999830019', TipoCFE: 111, Serie: 'A', Nro: 1 };

/** The 422 sentence for a CFE that breaks DGI's XSD, from libxml2's real message. */
function sealMessage(cfe: Cfe): { message: string; errores: string[] } {
  try {
    sealCfe(cfe, ctx, qr);
  } catch (err) {
    assert.ok(err instanceof SealError);
    return { message: err.message, errores: err.data!.errores };
  }
  assert.fail('sealed');
}

describe('XSD rejections in words a cashier can act on', () => {
  const item = base.Detalle[0];
  const cases: Array<[string, Cfe, string]> = [
    ['too many decimals', { ...base, Detalle: [{ ...item, PrecioUnitario: '1.123456789' }] }, 'el campo PrecioUnitario vale 1.123456789 y admite como máximo 6 decimales'],
    ['negative total', { ...base, Totales: { ...base.Totales, MntNetoIVATasaBasica: '-1.00' } }, 'el campo MntNetoIVATasaBasica vale -1.00 y no puede ser menor que 0.00'],
    ['too long', { ...base, Detalle: [{ ...item, NomItem: 'x'.repeat(90) }] }, 'el campo NomItem tiene 90 caracteres y admite como máximo 80'],
    ['too many digits', { ...base, Detalle: [{ ...item, Cantidad: '123456789012345678.5' }] }, 'el campo Cantidad vale 123456789012345678.5 y admite como máximo 17 dígitos'],
    ['not in the list', { ...base, Receptor: { ...base.Receptor!, CodPaisRecep: 'ZZ' } }, 'el campo CodPaisRecep ("ZZ") no es uno de los valores que admite DGI'],
    ['not a number', { ...base, Detalle: [{ ...item, Cantidad: 'abc' }] }, 'el campo Cantidad ("abc") no es un valor válido'],
  ];
  for (const [name, cfe, sentence] of cases) {
    it(name, () => {
      const { message, errores } = sealMessage(cfe);
      assert.equal(message, `El comprobante no cumple el esquema XSD de DGI: ${sentence}.`);
      assert.match(errores[0], /^line 1: Element '\{http:\/\/cfe\.dgi\.gub\.uy\}/, 'the raw message stays in errores');
    });
  }

  it('a message of another shape passes as it is', () => {
    const raw = "line 1: Element '{http://cfe.dgi.gub.uy}Detalle': This element is not expected. Expected is ( {http://cfe.dgi.gub.uy}Totales ).";
    assert.equal(describeXsdError(raw), raw);
    assert.equal(describeXsdError('something else'), 'something else');
  });
});

describe('sealing several CFEs stage by stage', () => {
  it('gives each CFE its own outcome, the same as sealing it alone', () => {
    const good = (nro: number) => sampleCfe(101, { lines: 2, Nro: nro });
    const badXsd = { ...base, Detalle: [{ ...base.Detalle[0], NomItem: 'x'.repeat(90) }] };
    const items = [good(1), badXsd, good(3)].map((draft, i) => ({ draft, key: ctx, qr: { ...qr, TipoCFE: draft.IdDoc.TipoCFE, Nro: i + 1 } }));
    const [a, b, c] = sealCfes(items);
    assert.ok(a.ok && c.ok);
    assert.deepEqual(a.value, sealCfe(items[0].draft, ctx, items[0].qr));
    assert.deepEqual(c.value, sealCfe(items[2].draft, ctx, items[2].qr));
    assert.match(c.value.xml, /<Nro>3<\/Nro>/);
    assert.ok(!b.ok && b.error instanceof SealError);
    assert.match((b.error as SealError).message, /NomItem tiene 90 caracteres/);
  });
});

describe('sealer contract', () => {
  it('reads the draft before seal() returns: renumbering it meanwhile does not reach the XML (inline and worker pool)', async () => {
    const { createSealer } = await import('./issued-cfe.sealer.js');
    for (const workers of [0, 1]) {
      const sealer = createSealer({ workers });
      try {
        const draft = structuredClone(sampleCfe(101, { lines: 1, Nro: 7 }));
        const sealing = sealer.seal(draft, ctx, { ...qr, TipoCFE: 101, Nro: 7 });
        draft.IdDoc.Nro = 8;
        const { xml } = await sealing;
        assert.match(xml, /<Nro>7<\/Nro>/, `workers ${workers}`);
      } finally {
        await sealer.close();
      }
    }
  });
});
