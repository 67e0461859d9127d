import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AckParseError, parseAckCfe, parseAckRepDiario, parseAckSobre } from './dgi.acks.ts';

// Real DGI Testing answers (2026-07-08): copies of test/fixtures/dgi/acks, sources in its SOURCE.md.
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

test('ACKSobre AS carries Token and Fechahora', () => {
  const ack = parseAckSobre(fixture('ack-sobre-as.xml'));
  assert.equal(ack.Estado, 'AS');
  assert.equal(ack.caratula.RUCReceptor, '219999830019');
  assert.equal(ack.caratula.RUCEmisor, '211234560019');
  assert.equal(ack.caratula.IDReceptor, '306849522');
  assert.equal(ack.caratula.IDEmisor, '1');
  assert.equal(ack.caratula.CantidadCFE, 1);
  assert.deepEqual(ack.motivos, []);
  assert.ok(ack.paramConsulta?.Token.startsWith('1mFylCMjQ1sgW/Oyyc8'));
  assert.equal(ack.paramConsulta?.Fechahora, '2026-07-08T18:08:10-03:00');
});

test('ACKSobre BS S02 keeps motive, glosa and detail verbatim', () => {
  const ack = parseAckSobre(fixture('ack-sobre-bs-s02.xml'));
  assert.equal(ack.Estado, 'BS');
  assert.equal(ack.paramConsulta, null);
  assert.deepEqual(ack.motivos, [
    {
      Motivo: 'S02',
      Glosa: 'No coincide RUC de Sobre, Certificado, envío o CFE',
      Detalle: 'EL RUC del Emisor no corresponde con el del certificado. -',
    },
  ]);
});

test('ACKCFE BE E04 (certificate not trusted)', () => {
  const ack = parseAckCfe(fixture('ack-cfe-be-e04.xml'));
  assert.equal(ack.variant, 'DGI');
  assert.equal(ack.caratula.CantenSobre, 1);
  assert.equal(ack.caratula.CantCFERechazados, 1);
  assert.equal(ack.caratula.CantCFEAceptados, 0);
  assert.equal(ack.detalles.length, 1);
  const det = ack.detalles[0];
  assert.equal(det.Nro_ordinal, 1);
  assert.equal(det.TipoCFE, '101');
  assert.equal(det.Serie, 'A');
  assert.equal(det.NroCFE, '1');
  assert.equal(det.Estado, 'BE');
  assert.equal(det.motivos[0].Motivo, 'E04');
  assert.equal(det.motivos[0].Glosa, 'Firma electrónica no es válida');
  assert.match(det.motivos[0].Detalle ?? '', /certificate not trusted/);
});

test('ACKCFE Partes variant rejects DGI-only states', () => {
  const xml = fixture('ack-cfe-be-e04.xml');
  assert.equal(parseAckCfe(xml, 'Partes').detalles[0].Estado, 'BE');
  assert.throws(() => parseAckCfe(xml.replace('<Estado>BE</Estado>', '<Estado>CE</Estado>'), 'Partes'), AckParseError);
});

test('ACKRepDiario BR with R05', () => {
  const xml =
    '<ACKRepDiario xmlns="http://cfe.dgi.gub.uy" version="1.0"><Caratula><RUCReceptor>219999830019</RUCReceptor>' +
    '<RUCEmisor>211234560019</RUCEmisor><NomArch></NomArch><FecHRecibido>2026-07-08T18:08:10-03:00</FecHRecibido>' +
    '<IDEmisor>3</IDEmisor><IDReceptor>99</IDReceptor><Tmst>2026-07-08T18:08:10-03:00</Tmst></Caratula>' +
    '<Detalle><Estado>BR</Estado><MotivosRechazo><Motivo>R05</Motivo>' +
    '<Glosa>La secuencia indicada en el reporte no es correcta</Glosa></MotivosRechazo></Detalle></ACKRepDiario>';
  const ack = parseAckRepDiario(xml);
  assert.equal(ack.Estado, 'BR');
  assert.equal(ack.caratula.IDRespuesta, null);
  assert.equal(ack.motivos[0].Motivo, 'R05');
});

test('wrong root and unknown Estado throw AckParseError', () => {
  assert.throws(() => parseAckSobre(fixture('ack-cfe-be-e04.xml')), AckParseError);
  assert.throws(() => parseAckSobre(fixture('ack-sobre-as.xml').replace('>AS<', '>ZZ<')), AckParseError);
  assert.throws(() => parseAckSobre('<not-xml'), AckParseError);
});
