/**
 * An issuer's notice that DGI rejected CFEs it had sent us (BRIEF 8, CFEs_Anulados_x_RechazoDGI.xsd):
 * those CFEs are annulled (BRIEF 10) and become `anulado_emisor` here, whatever we had decided.
 * The notice must be valid against its XSD, signed (certificate in KeyInfo) by the issuer it names,
 * and addressed to the company; otherwise it changes nothing and the reason is returned.
 */
import { X509Certificate } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { validateXml } from '../../platform/xml/xsd.js';
import { verifyXmlSignature } from '../emission/index.js';
import * as repo from './received-cfe.repository.js';

const all = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<(?:\\w+:)?${name}>\\s*([^<]*?)\\s*</(?:\\w+:)?${name}>`, 'g'))].map((m) => m[1]);

export async function applyAnnulment(tx: DbOrTx, companyId: number, companyRut: string, xml: string): Promise<string> {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return 'aviso de anulación con DOCTYPE: ignorado.';
  const xsd = validateXml('CFEs_Anulados', xml);
  if (!xsd.ok) return `aviso de anulación inválido (XSD): ${xsd.errors.slice(0, 2).join('; ')}`;
  const sig = verifyXmlSignature(xml);
  if (!sig.valid) return `aviso de anulación con firma inválida: ${sig.reason}`;
  const [rucEmisor] = all(xml, 'RUCEmisor');
  const [rucReceptor] = all(xml, 'RUCReceptor');
  if (rucReceptor !== companyRut) return `aviso de anulación para otro receptor (${rucReceptor}): ignorado.`;
  const certB64 = all(xml, 'X509Certificate')[0]?.replace(/\s+/g, '');
  const signer = certB64 ? /serialNumber=(?:RUC)?(\d{12})/i.exec(new X509Certificate(Buffer.from(certB64, 'base64')).subject)?.[1] : undefined;
  if (signer && signer !== rucEmisor) return `aviso de anulación firmado por ${signer}, no por el emisor ${rucEmisor}: ignorado.`;
  const tipos = all(xml, 'TipoCFE');
  const series = all(xml, 'Serie');
  const numeros = all(xml, 'NroCFE');
  let annulled = 0;
  for (let i = 0; i < tipos.length; i += 1) {
    const r = await tx.execute<{ id: string }>(sql`
      update received_cfes set estado = 'anulado_emisor'
       where company_id = ${companyId} and rut_emisor = ${rucEmisor} and tipo_cfe = ${Number(tipos[i])} and serie = ${series[i]} and numero = ${Number(numeros[i])}
         and estado in ('pendiente', 'aceptado', 'rechazado')
       returning id`);
    await repo.insertHistory(tx, r.rows.map((row: { id: string }) => ({ receivedCfeId: Number(row.id), companyId, estado: 'anulado_emisor' as const, mensaje: 'Anulado por el emisor: rechazado por DGI (CFEs_Anulados_x_RechazoDGI)' })));
    annulled += r.rows.length;
  }
  return `aviso de anulación del RUT ${rucEmisor}: ${annulled} de ${tipos.length} CFE recibidos quedan anulado_emisor.`;
}
