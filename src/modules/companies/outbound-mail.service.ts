/**
 * Outbound mail settings of a company (issue 7 point 5: CFE e-mails go "through the company's SMTP
 * settings or the service's default transport"). Reading and writing need `administrador`; the
 * password is sealed by functions handed in by modules/index.ts (certificates.crypto under the
 * master key) and never leaves the service except inside the SMTP URL given to the mailer.
 */
import type { Db } from '../../platform/db/client.js';
import { assertCompanyRole, type Actor } from '../../platform/http/actor.js';
import { errors } from '../../lib/errors.js';
import type { Mailer } from '../../platform/mailer.js';
import { companyErrors as E } from './companies.errors.js';
import * as repo from './outbound-mail.repository.js';
import type { OutboundMailRow } from './outbound-mail.repository.js';

export interface SecretBox {
  seal(plain: string): string;
  unseal(sealed: string): string;
}

export interface OutboundMailInput {
  smtpHost: string | null;
  smtpPuerto?: number;
  smtpSeguro?: boolean;
  smtpUsuario?: string | null;
  smtpClave?: string | null;
  remitente?: string;
}

/** What the mailer needs to send through a company's server. */
export interface CompanyTransport {
  smtpUrl: string;
  from: string;
}

// Without these nodemailer waits 2 minutes on an unreachable host; a test request must answer sooner.
const TIMEOUTS = 'connectionTimeout=15000&greetingTimeout=15000&socketTimeout=60000';

export function smtpUrlOf(row: OutboundMailRow, password: string | undefined): string {
  const auth = row.smtpUsuario ? `${encodeURIComponent(row.smtpUsuario)}${password !== undefined ? `:${encodeURIComponent(password)}` : ''}@` : '';
  const host = row.smtpHost.includes(':') ? `[${row.smtpHost}]` : row.smtpHost;
  return `${row.smtpSeguro ? 'smtps' : 'smtp'}://${auth}${host}:${row.smtpPuerto}?${TIMEOUTS}`;
}

function view(companyId: number, row: OutboundMailRow | undefined) {
  return {
    idEmpresa: companyId,
    configurado: !!row,
    smtpHost: row?.smtpHost ?? null,
    smtpPuerto: row?.smtpPuerto ?? null,
    smtpSeguro: row?.smtpSeguro ?? null,
    smtpUsuario: row?.smtpUsuario ?? null,
    smtpClaveConfigurada: !!row?.smtpClaveCifrada,
    remitente: row?.remitente ?? null,
    fechaActualizacion: row?.updatedAt.toISOString() ?? null,
  };
}

export function createOutboundMailService(deps: { db: Db; mailer: Mailer; secrets: SecretBox }) {
  const { db, mailer, secrets } = deps;

  const liveCompany = async (actor: Actor, companyId: number) => {
    assertCompanyRole(actor, companyId, 'administrador');
    const company = await repo.liveCompanyEmail(db, companyId);
    if (!company) throw errors.EMPRESA_NO_ENCONTRADA();
    return company;
  };

  /** The company's transport, or undefined for the service's default one. */
  async function transportOf(companyId: number): Promise<CompanyTransport | undefined> {
    const row = await repo.findOutboundMail(db, companyId);
    if (!row) return undefined;
    return { smtpUrl: smtpUrlOf(row, row.smtpClaveCifrada ? secrets.unseal(row.smtpClaveCifrada) : undefined), from: row.remitente };
  }

  return {
    transportOf,

    /** GET /api/v1/empresa/correoSaliente (role administrador). */
    async get(actor: Actor, companyId: number) {
      await liveCompany(actor, companyId);
      return view(companyId, await repo.findOutboundMail(db, companyId));
    },

    /** PUT /api/v1/empresa/correoSaliente (role administrador): smtpHost null clears. */
    async put(actor: Actor, companyId: number, input: OutboundMailInput) {
      await liveCompany(actor, companyId);
      if (input.smtpHost === null) {
        await repo.deleteOutboundMail(db, companyId);
        return view(companyId, undefined);
      }
      const current = await repo.findOutboundMail(db, companyId);
      const port = input.smtpPuerto!;
      const clave = input.smtpClave === undefined ? current?.smtpClaveCifrada ?? null : input.smtpClave === null ? null : secrets.seal(input.smtpClave);
      const saved = await repo.upsertOutboundMail(db, {
        companyId,
        smtpHost: input.smtpHost,
        smtpPuerto: port,
        smtpSeguro: input.smtpSeguro ?? port === 465,
        smtpUsuario: input.smtpUsuario ?? null,
        smtpClaveCifrada: clave,
        remitente: input.remitente!,
      });
      return view(companyId, saved);
    },

    /** POST /api/v1/empresa/verificar-email-saliente: one test message; any SMTP failure is 422 SMTP_FALLO. */
    async verify(actor: Actor, companyId: number, destinatario?: string) {
      const company = await liveCompany(actor, companyId);
      const to = destinatario ?? company.email;
      if (!to) throw E.DESTINATARIO_PRUEBA_REQUERIDO();
      const transport = await transportOf(companyId);
      try {
        const info = await mailer.send(
          { to, subject: 'Prueba de correo saliente', text: 'Mensaje de prueba del servicio de facturación electrónica: la configuración de correo saliente funciona.\n' },
          transport ? { smtpUrl: transport.smtpUrl, from: transport.from } : {},
        );
        if (info.rejected?.length) throw Object.assign(new Error(`Destinatario rechazado: ${info.rejected.join(', ')}`), { rejectedErrors: info.rejectedErrors });
        return { ok: true as const, transporte: transport ? ('empresa' as const) : ('servicio' as const), messageId: info.messageId, destinatario: to };
      } catch (err) {
        const e = err as { response?: unknown; message?: unknown; responseCode?: unknown; code?: unknown };
        const servidor = String(e.response ?? e.message ?? err).slice(0, 500);
        throw E.SMTP_FALLO(`El servidor de correo rechazó el envío de prueba: ${servidor}`, {
          codigoSmtp: typeof e.responseCode === 'number' ? e.responseCode : null,
          codigo: typeof e.code === 'string' ? e.code : null,
        });
      }
    },
  };
}

export type OutboundMailService = ReturnType<typeof createOutboundMailService>;
