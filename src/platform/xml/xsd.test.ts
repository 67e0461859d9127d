import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { DGI_XSD_DIR, loadPatchedXsdSet, validateXml } from './xsd.ts';

const fixture = (path: string) => readFileSync(new URL(`../../../test/fixtures/dgi/${path}`, import.meta.url));

describe('validateXml', () => {
  it('validates DGI sample envelope, daily report and a current CAE file', () => {
    assert.deepEqual(validateXml('EnvioCFE', fixture('dgi/Sob_219999830019_Ej_Mod_19072016.xml')), { ok: true });
    assert.deepEqual(validateXml('EnvioCFE', fixture('dgi/Sob_219999830019_fac-Cta_Ajena-enc.xml')), { ok: true });
    assert.deepEqual(validateXml('Reporte', fixture('dgi/Rep_219000090011_20120511_01_Ej_Mod_27032014.xml')), { ok: true });
    assert.deepEqual(validateXml('CAE', fixture('cae/CAE_215071660012_90160134272_e-Factura.xml')), { ok: true });
  });

  it('reports schema errors with line numbers', () => {
    const r = validateXml('CFE', '<CFE xmlns="http://cfe.dgi.gub.uy" version="1.0"><eTck></eTck></CFE>');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : r.errors[0], /line 1: .*TmstFirma/);
  });

  it('reports malformed XML instead of throwing', () => {
    const r = validateXml('ACKSobre', '<ACKSobre');
    assert.equal(r.ok, false);
  });

  it('old-format CAE (no TA) fails the current CAE.xsd, as SOURCE.md documents', () => {
    assert.equal(validateXml('CAE', fixture('cae/CAE_219999830019_90120000194_e-Ticket.xml')).ok, false);
  });

  it('patches X509SerialNumber in memory only', () => {
    assert.match(loadPatchedXsdSet().get('xmldsig-core-schema.xsd')!.toString(), /name="X509SerialNumber" type="string"/);
    assert.match(readFileSync(`${DGI_XSD_DIR}xmldsig-core-schema.xsd`, 'utf8'), /name="X509SerialNumber" type="integer"/);
  });
});
