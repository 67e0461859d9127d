/**
 * Simulated WS_PersonaGetActEmpresarial (BRIEF §11; WSRUT). Seeded with the RUTs DGI's Testing
 * service answers for; names and addresses are plausible inventions except where DGI published
 * them (219000090011 below is as seen in public client READMEs).
 */
import type { RutInfo } from '../dgi.client.ts';
import { escapeXml, soapEnvelope, soapFaultXml } from '../dgi.soap.ts';
import type { SoapReply } from './efactura-service.ts';

export const RUT_NS = 'DGI_Modernizacion_Consolidado';

/** A registry entry; EstadoActividad NT/CC/AF answer with faults 10/11/12 like DGI. */
export type RutRecord = RutInfo;

const dgiAddress = (street: string, number: string, city: string, department: string, postalCode: string) => ({
  street,
  number,
  apartment: null,
  city,
  department,
  postalCode,
  contacts: [{ type: 'CORREO ELECTRONICO', value: 'facturacion@example.com.uy' }],
});

const company = (RUT: string, Denominacion: string, NombreFantasia: string, address: RutInfo['address']): RutRecord => ({
  RUT,
  Denominacion,
  NombreFantasia,
  TipoEntidad: '3',
  DescripcionTipoEntidad: 'SOCIEDAD ANONIMA',
  EstadoActividad: 'AA',
  FechaInicioActividad: '2010-01-01',
  address,
  activities: [{ code: '62010', name: 'ACTIVIDADES DE PROGRAMACION INFORMATICA', startDate: '2010-01-01' }],
});

/** DGI's Testing RUT list (BRIEF §11). */
export function seedRuts(): RutRecord[] {
  return [
    {
      ...company('219000090011', 'DGI RUC PRUEBA CEDE Y DIRECCION GENERAL IMPOSITIVA', 'PRUEBA NUEVOS SERVICIOS  -',
        dgiAddress('12 METROS', '6855', 'CASUPA', 'LAVALLEJA', '0')),
      TipoEntidad: '27',
      DescripcionTipoEntidad: 'SOCIEDAD CIVIL',
      FechaInicioActividad: '2006-09-27',
    },
    company('219999820013', 'DGI RUC PRUEBA NO CEDE', 'PRUEBA NO CEDE', dgiAddress('AVDA. DANIEL FERNANDEZ CRESPO', '1534', 'MONTEVIDEO', 'MONTEVIDEO', '11200')),
    company('219999830019', 'DGI-RUC PRUEBA CEDE', 'PRUEBA CEDE', dgiAddress('AVDA. DANIEL FERNANDEZ CRESPO', '1534', 'MONTEVIDEO', 'MONTEVIDEO', '11200')),
    company('211428940011', 'COMERCIAL DEL ESTE SA', 'ALMACEN DEL ESTE', dgiAddress('AVDA. ROOSEVELT', '2210', 'PUNTA DEL ESTE', 'MALDONADO', '20100')),
    company('210475730011', 'DISTRIBUIDORA LITORAL SRL', 'DISLIT', dgiAddress('18 DE JULIO', '845', 'PAYSANDU', 'PAYSANDU', '60000')),
    company('210465050018', 'SERVICIOS INFORMATICOS DEL SUR SA', 'SISUR', dgiAddress('RBLA. REPUBLICA DE MEXICO', '5515', 'MONTEVIDEO', 'MONTEVIDEO', '11400')),
    company('210154140015', 'AGROPECUARIA EL CEIBO SA', 'EL CEIBO', dgiAddress('RUTA 5 KM', '180', 'DURAZNO', 'DURAZNO', '97000')),
    { ...company('210094030014', 'INDUSTRIAS TEXTILES DEL NORTE SA', 'TEXNOR', dgiAddress('ARTIGAS', '1120', 'RIVERA', 'RIVERA', '40000')), EstadoActividad: 'CC' },
  ];
}

const el = (name: string, value: string | null | undefined) => `<${name}>${escapeXml(value ?? '')}</${name}>`;

/** The CDATA payload `WS_PersonaActEmpresarial`, item names as DGI returns them. */
export function personaXml(r: RutRecord): string {
  const a = r.address;
  const dom = a
    ? `<WS_DomFiscalLocPrincipal><WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem>${el('Local_Sec_Nro', '1')}` +
      `${el('TipoLocal_Dsc', 'PRINCIPAL')}${el('TipoDom_Des', 'FISCAL')}${el('Calle_Nom', a.street)}${el('Dom_Pta_Nro', a.number)}` +
      `${el('Dom_Ap_Nro', a.apartment)}${el('Loc_Nom', a.city)}${el('Dpto_Nom', a.department)}${el('Dom_Pst_Cod', a.postalCode)}` +
      `<Contactos>${a.contacts
        .map((c) => `<WS_Domicilio.WS_DomicilioItem.Contacto>${el('TipoCtt_Des', c.type)}${el('DomCtt_Val', c.value)}</WS_Domicilio.WS_DomicilioItem.Contacto>`)
        .join('')}</Contactos><Complementos/></WS_PersonaActEmpresarial.WS_DomFiscalLocPrincipalItem></WS_DomFiscalLocPrincipal>`
    : '<WS_DomFiscalLocPrincipal/>';
  const acts = r.activities
    .map((x) => `<WS_PersonaActEmpresarial.WS_PersonaActividadesItem>${el('GiroCod', x.code)}${el('GiroNom', x.name)}${el('GiroFec_Ini', x.startDate)}</WS_PersonaActEmpresarial.WS_PersonaActividadesItem>`)
    .join('');
  return (
    `<WS_PersonaActEmpresarial>${el('RUT', r.RUT)}${el('Denominacion', r.Denominacion)}${el('NombreFantasia', r.NombreFantasia)}` +
    `${el('TipoEntidad', r.TipoEntidad)}${el('DescripcionTipoEntidad', r.DescripcionTipoEntidad)}${el('EstadoActividad', r.EstadoActividad)}` +
    `${el('FechaInicioActivdad', r.FechaInicioActividad)}${dom}<WS_PersonaActividades>${acts}</WS_PersonaActividades></WS_PersonaActEmpresarial>`
  );
}

export class RutService {
  private readonly registry = new Map<string, RutRecord>();
  constructor() {
    for (const r of seedRuts()) this.registry.set(r.RUT, r);
  }

  find(rut: string): RutRecord | undefined {
    return this.registry.get(rut);
  }

  add(record: RutRecord): void {
    this.registry.set(record.RUT, record);
  }

  /** Faults per WSRUT: 5 bad length, 10 never had activity, 11 cancelled, 12 future, 14 not available. */
  answer(rut: string): SoapReply {
    const fault = (codigo: number, text: string) => ({ status: 500, body: soapFaultXml(codigo, text) });
    if (!/^\d{12}$/.test(rut)) return fault(5, 'El largo del RUT no es correcto');
    const record = this.registry.get(rut);
    if (!record) return fault(14, 'RUT no disponible para pruebas');
    if (record.EstadoActividad === 'NT') return fault(10, 'El RUT nunca tuvo actividad empresarial');
    if (record.EstadoActividad === 'CC' || record.EstadoActividad === 'CH') return fault(11, 'La actividad empresarial del RUT está cancelada');
    if (record.EstadoActividad === 'AF') return fault(12, 'La actividad empresarial del RUT comienza en el futuro');
    return {
      status: 200,
      body: soapEnvelope(
        `<WS_PersonaGetActEmpresarial.ExecuteResponse xmlns="${RUT_NS}"><Data><![CDATA[${personaXml(record)}]]></Data>` +
          `</WS_PersonaGetActEmpresarial.ExecuteResponse>`,
      ),
    };
  }
}
