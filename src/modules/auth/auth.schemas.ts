import { z } from 'zod';

export const loginBody = z.object({
  usuario: z.string().min(1).describe('E-mail of the user').meta({ example: 'admin@empresa.com.uy' }),
  clave: z.string().min(1).describe('Password'),
});

export const tokenPair = z.object({
  accessToken: z.string().describe('JWT (HS256), valid `expiresIn` seconds'),
  refreshToken: z.string().describe('Opaque; single use: every refresh returns a new one'),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().int().describe('Access-token lifetime in seconds'),
});

export const refreshBody = z.object({ refreshToken: z.string().min(1) });

export const recoverBody = z.object({ usuario: z.string().min(1).describe('E-mail of the user') });
export const recoverResponse = z.object({ mensaje: z.string() });

export const resetBody = z.object({
  token: z.string().min(1).describe('Code received by e-mail'),
  nuevaClave: z.string().min(8).describe('New password (at least 8 characters)'),
});

export const revokeParams = z.object({ refreshToken: z.string().min(1) });
export const revokeResponse = z.object({ revocados: z.number().int() });
