/**
 * Private keys at rest: AES-256-GCM under the master key (config MASTER_KEY, mandatory in
 * production, enforced by config.ts). Outside production a key is generated once in DATA_DIR,
 * like the local JWT secret.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function resolveMasterKey(opts: { masterKey?: string; isProduction: boolean; dataDir: string }): Buffer {
  if (opts.masterKey) return Buffer.from(opts.masterKey, 'hex');
  if (opts.isProduction) throw new Error('MASTER_KEY is required in production');
  const file = path.join(opts.dataDir, 'master-key');
  try {
    return Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'hex');
  } catch {
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const key = randomBytes(32);
    fs.writeFileSync(file, key.toString('hex'), { mode: 0o600 });
    return key;
  }
}

export function encryptSecret(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64')).join('.');
}

export function decryptSecret(key: Buffer, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64'));
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
