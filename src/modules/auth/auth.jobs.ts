import { z } from 'zod';
import { defineJob, handleJob } from '../../platform/jobs/queue.js';
import type { Mailer } from '../../platform/mailer.js';

/** E-mails a password-reset token; the token is created inside the job so it is never stored in clear. */
export const passwordResetJob = defineJob({
  name: 'auth.password-reset-mail',
  payload: z.object({ userId: z.number().int() }),
  maxAttempts: 8,
});

export function authJobHandlers(deps: {
  createResetToken(userId: number): Promise<string>;
  emailOf(userId: number): Promise<string | undefined>;
  mailer: Mailer;
  publicUrl?: string;
  ttlMinutes: number;
}) {
  return [
    handleJob(passwordResetJob, async ({ userId }) => {
      const to = await deps.emailOf(userId);
      if (!to) return;
      const token = await deps.createResetToken(userId);
      const link = deps.publicUrl ? `\n\nO abra: ${deps.publicUrl.replace(/\/$/, '')}/restablecer-clave?token=${encodeURIComponent(token)}` : '';
      await deps.mailer.send({
        to,
        subject: 'Recuperación de contraseña',
        text:
          `Recibimos un pedido para restablecer su contraseña.\n\n` +
          `Código de recuperación (válido ${deps.ttlMinutes} minutos, un solo uso):\n${token}\n\n` +
          `Úselo con POST /api/auth/restablecerClave {"token": "…", "nuevaClave": "…"}.${link}\n\n` +
          `Si usted no lo pidió, ignore este mensaje.`,
      });
    }),
  ];
}
